/**
 * The name the live page and its feed give a routed request's route, read from its path: the
 * first segment after `/v1/` (`/v1/chat/completions` → `chat`, `/v1/responses` → `responses`,
 * `/v1/messages` → `messages`). A new route over routeToBackend is named without any code of its
 * own. Read from the URL rather than Fastify's routeOptions, which builds an object per read.
 */
import { pathOf } from '../http/path-of.js';

export function routeLabelOf(url: string): string {
  const path = pathOf(url);
  const start = path.startsWith('/v1/') ? 4 : 1;
  const end = path.indexOf('/', start);
  const label = end === -1 ? path.slice(start) : path.slice(start, end);
  return label === '' ? 'unknown' : label;
}
