/**
 * Recognises a context overflow in every wording recorded in docs/wire-protocol.md (#http-errors
 * and #errors-inside-the-stream) and writes the one message svir answers with. The wordings are facts about the servers
 * and cannot mean anything else, so this reads what the body says, not which backend sent it.
 */
import type { UpstreamErrorInfo } from './read-upstream-error-body.js';

export interface ContextOverflow {
  /** Tokens in the prompt, where the server said. */
  promptTokens: number | null;
  /** The model's context length, where the server said. */
  contextTokens: number | null;
}

const OVERFLOW_CODES: ReadonlySet<string> = new Set(['context_length_exceeded', 'context_window_exceeded']);

/** llama.cpp's error type for a prompt over `n_ctx`. */
const OVERFLOW_TYPES: ReadonlySet<string> = new Set(['exceed_context_size_error']);

const OVERFLOW_WORDINGS: readonly RegExp[] = [
  // OpenAI schema, vLLM (`param: input_tokens`).
  /maximum context length/i,
  // llama.cpp: "request (20056 tokens) exceeds the available context size (16384 tokens)".
  /exceeds the available context size/i,
  // LM Studio's `event: error`: "...is greater than the context length...".
  /greater than the context length/i,
  // mlx-vlm with MAX_KV_SIZE: the last message alone does not fit.
  /protected conversation exceeds the available context budget/i,
  // mlx-vlm with MAX_KV_SIZE: max_tokens leaves no room for the prompt.
  /output reservation leaves no room for compacted context/i,
  // Ollama, a model that cannot shift its context: "the prompt is longer than the context length
  // currently available to the model; ..." (docs/ollama.md).
  /prompt is longer than the context length/i,
  // Ollama's older runners and its embeddings: "the input length exceeds the context length".
  /input length exceeds the context length/i,
];

function tokensFromMessage(message: string): ContextOverflow {
  // llama.cpp: "request (20056 tokens) exceeds the available context size (16384 tokens)".
  const llama = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/i.exec(message);
  if (llama?.[1] !== undefined && llama[2] !== undefined) {
    return { promptTokens: Number(llama[1]), contextTokens: Number(llama[2]) };
  }
  // OpenAI and vLLM: "maximum context length is 262144 tokens ... prompt contains at least 262145 input tokens".
  const context = /maximum context length is (\d+) tokens/i.exec(message);
  const prompt = /(?:prompt contains|messages resulted in)(?: at least)? (\d+) (?:input )?tokens/i.exec(message);
  return {
    promptTokens: prompt?.[1] === undefined ? null : Number(prompt[1]),
    contextTokens: context?.[1] === undefined ? null : Number(context[1]),
  };
}

/**
 * The overflow the body reports, or null. A rejected `max_tokens` (vLLM: "max_tokens=300000
 * cannot be greater than max_model_len=...") is a parameter error, never an overflow.
 */
export function recognizeContextOverflow(info: UpstreamErrorInfo): ContextOverflow | null {
  if (info.param === 'max_tokens') return null;
  const serverMessage = info.messageFromServer ? info.message : '';
  const recognised =
    (info.code !== null && OVERFLOW_CODES.has(info.code)) ||
    (info.type !== null && OVERFLOW_TYPES.has(info.type)) ||
    info.param === 'input_tokens' ||
    OVERFLOW_WORDINGS.some((wording) => wording.test(serverMessage));
  if (!recognised) return null;
  const fromMessage = tokensFromMessage(serverMessage);
  return {
    promptTokens: info.nPromptTokens ?? fromMessage.promptTokens,
    contextTokens: info.nCtx ?? fromMessage.contextTokens,
  };
}

/**
 * OpenAI's words, which client libraries match ("maximum context length"), then the counts the
 * server gave, then the server's own message when it says more than ours.
 */
export function contextOverflowMessage(overflow: ContextOverflow, serverMessage: string | null): string {
  const { promptTokens, contextTokens } = overflow;
  let ours: string;
  if (contextTokens !== null && promptTokens !== null) {
    ours = `This model's maximum context length is ${contextTokens} tokens, but the prompt has ${promptTokens} tokens.`;
  } else if (contextTokens !== null) {
    ours = `This model's maximum context length is ${contextTokens} tokens, and the prompt does not fit.`;
  } else if (promptTokens !== null) {
    ours = `The prompt (${promptTokens} tokens) exceeds this model's maximum context length.`;
  } else {
    // No number anywhere: the words clients fall back on ("context length exceeded") say it.
    ours = "The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts).";
  }
  if (serverMessage === null) return ours;
  // vLLM and OpenAI already say it in OpenAI's words: theirs alone is clearer than both.
  if (/maximum context length/i.test(serverMessage)) return serverMessage;
  return `${ours} The server said: ${serverMessage}`;
}
