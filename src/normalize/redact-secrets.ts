/**
 * Removes secrets from text that is about to reach a client or a log: every configured key
 * (svir's own and the backends'), and anything that looks like a bearer token or an OpenAI-style
 * key, since a server may echo the key it was sent ("Incorrect API key provided: sk-...").
 */
const BEARER = /\bBearer\s+[^\s"',;]+/gi;
const OPENAI_STYLE_KEY = /\bsk-[A-Za-z0-9_*.-]{6,}/g;

export const REDACTED = '[redacted]';

export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a key that contains another is removed whole.
  const sorted = [...new Set(secrets.filter((secret) => secret.length > 0))].sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join(REDACTED);
  return out.replace(BEARER, `Bearer ${REDACTED}`).replace(OPENAI_STYLE_KEY, REDACTED);
}
