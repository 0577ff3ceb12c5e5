/**
 * An image to a backend that cannot take it is svir's 400 `unsupported_content` before sending:
 * mlx-lm answers it with a 404 and llama.cpp without its projector with a 500
 * (docs/wire-protocol.md#messages), both statuses that say the wrong thing.
 */
import { SvirError } from '../../errors.js';
import type { BackendInfo } from '../adapter.js';
import type { RequestRewrite } from './request-draft.js';
import { hasImage } from './has-image.js';

export function rejectImagesUnless(canTakeImages: (backend: BackendInfo) => boolean, why: string): RequestRewrite {
  return (draft, backend) => {
    if (canTakeImages(backend) || !hasImage(draft.body.messages)) return draft;
    return new SvirError('unsupported_content', {
      message: `Backend "${backend.config.name}" cannot take images: ${why}.`,
      param: 'messages',
      backend: backend.config.name,
    });
  };
}
