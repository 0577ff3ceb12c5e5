/**
 * The second guard of svir's log (create-logger.ts): every configured key is censored wherever
 * its value appears in a finished line, so a key that slips into a message or an upstream error
 * is still never written.
 */

/** What a key is replaced with, by path (pino's redaction) and by value (the censor). */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not censored by value: replacing a 3-letter string everywhere would wreck
 * every line; such keys are still redacted by path and never logged on purpose.
 */
const MIN_CENSORED_LENGTH = 4;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A function that replaces every secret (raw and as it reads inside a JSON string) in a line. */
export function createCensor(secrets: readonly string[]): (line: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_CENSORED_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return (line) => line;
  // Longest first, so a key that contains another key is replaced whole.
  const pattern = new RegExp(
    [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'),
    'g',
  );
  return (line) => line.replace(pattern, REDACTED);
}
