/**
 * The Responses shapes svir sends (field names as the `openai` package's types have them:
 * node_modules/openai/resources/responses/responses.d.ts): the output items and the response
 * object. The stream events are responses-event.ts.
 */

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: never[];
}

export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageOutputItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: (OutputTextPart | RefusalPart)[];
}

/**
 * A reasoning item carries the reasoning text in one form, the one the request asked for
 * (reasoning-form.ts): as its summary, or as its raw `reasoning_text` content; the other is empty.
 */
export interface ReasoningOutputItem {
  type: 'reasoning';
  id: string;
  status: ItemStatus;
  summary: { type: 'summary_text'; text: string }[];
  content: { type: 'reasoning_text'; text: string }[];
}

export interface FunctionCallOutputItem {
  type: 'function_call';
  id: string;
  status: ItemStatus;
  call_id: string;
  name: string;
  /** Present for a function of a `namespace` tool: Codex dispatches a call by (namespace, name). */
  namespace?: string;
  arguments: string;
}

export type OutputItem = MessageOutputItem | ReasoningOutputItem | FunctionCallOutputItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** The request's fields a response object repeats (clients read them back). */
export interface ResponseEcho {
  instructions: string | null;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  text: { format: unknown; verbosity?: string };
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  metadata: Record<string, string>;
  previous_response_id: string | null;
  truncation: 'auto' | 'disabled';
  user?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
}

export interface ResponseObject extends ResponseEcho {
  id: string;
  object: 'response';
  /** Seconds since the epoch. */
  created_at: number;
  completed_at?: number;
  status: ResponseStatus;
  /** The model string the client sent. */
  model: string;
  output: OutputItem[];
  error: { code: string | null; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  usage?: ResponseUsage;
}
