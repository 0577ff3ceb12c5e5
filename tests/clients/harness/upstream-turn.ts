/**
 * One model answer described by what it says, not by how a server frames it: the client tests
 * write each scenario once and `renderUpstreamTurn` frames it in every backend's dialect.
 */

/** One piece of a tool call as a server streams it (name and arguments may be split). */
export interface ToolPiece {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export interface TurnUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  reasoning_tokens?: number;
}

/** One upstream event's worth of the answer. */
export type TurnStep =
  | { reasoning: string }
  | { content: string }
  /** The pieces of one chunk: several pieces in one chunk interleave calls. */
  | { tools: ToolPiece[] }
  | { finish: 'stop' | 'length' | 'tool_calls' | 'content_filter' }
  | { usage: TurnUsage };

export interface UpstreamTurn {
  steps: TurnStep[];
  /**
   * `done`: `data: [DONE]` and the response ends. `error`: generation dies after the steps, in
   * the form the server has for it (an error chunk, LM Studio's `event: error`, or for a server
   * that has none, the connection cut).
   */
  end: { kind: 'done' } | { kind: 'error'; message: string };
}
