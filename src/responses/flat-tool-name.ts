/**
 * The chat name of a function inside a Responses `namespace` tool. A chat backend knows only
 * flat functions, so `multi_agent_v1` → `close_agent` is offered as `multi_agent_v1__close_agent`;
 * a namespace that already ends in `__` (Codex names MCP servers `mcp__server__`) is joined as
 * is. The call comes back to the client split again (name and namespace apart), which is how
 * Codex dispatches it (by the pair).
 */
export function flatToolName(namespace: string, name: string): string {
  return namespace.endsWith('__') ? `${namespace}${name}` : `${namespace}__${name}`;
}
