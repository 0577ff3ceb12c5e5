/** A BackendInfo as the router would hand it over, built from config input with its defaults. */
import type { BackendInfo } from '../../src/adapters/adapter.js';
import { backendSchema, type BackendType } from '../../src/config/schema.js';
import { normalizeBaseUrl } from '../../src/config/normalize-base-url.js';
import type { z } from 'zod';

type BackendInput = Partial<z.input<typeof backendSchema>>;

export function makeBackend(
  type: BackendType,
  config: BackendInput = {},
  info: { vision?: boolean; reasoningField?: string } = {},
): BackendInfo {
  const parsed = backendSchema.parse({
    name: `${type}-test`,
    type,
    url: 'http://127.0.0.1:9/v1',
    ...(type === 'azure' ? { models: ['my-deployment'] } : {}),
    ...config,
  });
  const backend: BackendInfo = {
    config: parsed,
    baseUrl: normalizeBaseUrl(parsed.url),
    vision: info.vision ?? parsed.vision,
  };
  if (info.reasoningField !== undefined) backend.reasoningField = info.reasoningField;
  return backend;
}
