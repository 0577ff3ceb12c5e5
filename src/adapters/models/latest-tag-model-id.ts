/**
 * Ollama lists every model under `name:tag` and answers a name without a tag as `name:latest`
 * (docs/ollama.md), which is how its users write it (`llama3.2`). So a requested id with no tag
 * is served by the listed `<id>:latest`, when there is one. A tag is what follows the last `:`
 * after the last `/` (`hf.co/org/model:Q4_K_M`; a host's port is not a tag).
 */
export function latestTagModelId(requested: string, listed: readonly string[]): string | undefined {
  const name = requested.slice(requested.lastIndexOf('/') + 1);
  if (name.length === 0 || name.includes(':')) return undefined;
  const latest = `${requested}:latest`;
  return listed.includes(latest) ? latest : undefined;
}
