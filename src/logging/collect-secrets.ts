/** The keys svir must never write (logging/create-censor.ts) nor echo in an error. */
import type { Config } from '../config/schema.js';

/** Every key in the config: svir's own and each backend's. */
export function collectSecrets(config: Config): string[] {
  const secrets = [...config.server.apiKeys];
  for (const backend of config.backends) if (backend.apiKey !== undefined) secrets.push(backend.apiKey);
  return secrets;
}
