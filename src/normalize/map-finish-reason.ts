/**
 * A server's raw finish reason → one of the four the clean dialect allows
 * (docs/contract.md#clean-dialect). Servers outside OpenAI use their own words (`eos`,
 * `max_tokens`, `abort`, ...); each is read for what it means to a client: the answer ended, was
 * cut short, called tools, or was blocked.
 */
import type { FinishReason } from './clean-chunk.js';

const KNOWN: ReadonlyMap<string, FinishReason> = new Map<string, FinishReason>([
  ['stop', 'stop'],
  ['eos', 'stop'],
  ['eos_token', 'stop'],
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['end', 'stop'],
  ['length', 'length'],
  ['max_tokens', 'length'],
  ['max_length', 'length'],
  ['model_length', 'length'],
  ['max_output_tokens', 'length'],
  ['context_length', 'length'],
  ['tool_calls', 'tool_calls'],
  ['tool_call', 'tool_calls'],
  ['tool_use', 'tool_calls'],
  ['function_call', 'tool_calls'],
  ['content_filter', 'content_filter'],
  ['safety', 'content_filter'],
  ['blocked', 'content_filter'],
  ['recitation', 'content_filter'],
]);

/**
 * Reasons that say the server gave up on the answer: vLLM's `abort` (the request was aborted
 * inside the engine), a server's `error`. No clean reason says that; `stop` would make a cut
 * answer look whole, so the stream ends with an error instead.
 */
const CUT: ReadonlySet<string> = new Set(['abort', 'aborted', 'error']);

/** A clean finish reason, or `cut`: the answer was cut by a failure and the stream must fail. */
export type MappedFinish = FinishReason | 'cut';

/**
 * Unknown reasons (a server's private word) end the answer without saying it was cut or
 * blocked, which is what `stop` tells a client.
 */
export function mapFinishReason(raw: string): MappedFinish {
  const word = raw.trim().toLowerCase();
  return KNOWN.get(word) ?? (CUT.has(word) ? 'cut' : 'stop');
}
