/**
 * How a server counts a prompt's tokens with its own tokenizer and template, as data: the
 * exchange to make (a path relative to the server's root and a JSON body), and how to read its
 * answer: the count, or the next exchange (llama.cpp renders the template first, then
 * tokenizes the text). Pure: upstream/count-server-tokens.ts makes the exchanges.
 */
export interface TokenCountPlan {
  path: string;
  body: Record<string, unknown>;
  /** The count, the next exchange, or undefined when the answer says neither. */
  read(json: unknown): number | TokenCountPlan | undefined;
}

/** What is counted: the chat request's messages and tools, as the chat route would send them. */
export interface TokenCountInput {
  model: string;
  messages: readonly Record<string, unknown>[];
  tools: readonly unknown[] | undefined;
}
