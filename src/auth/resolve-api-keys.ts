/**
 * svir's own keys: `server.apiKeys` from the config plus `SVIR_API_KEYS` (comma-separated) from
 * the environment, so a key can stay out of the config file. No keys: no authentication.
 */
export function resolveApiKeys(configKeys: readonly string[], env: Readonly<Record<string, string | undefined>>): string[] {
  const fromEnv = (env.SVIR_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  return [...new Set([...configKeys.filter((key) => key.length > 0), ...fromEnv])];
}
