/**
 * The chat formats the real-server suite runs svir over (scripts/real-llama/tiny_formats.py
 * makes one tiny model of each): what each family's model writes and what llama.cpp v0.5.0's
 * parser for it does with it, as tests/real/formats.real.ts checks through svir. The findings
 * behind each field are in docs/llamacpp-real.md.
 */
export interface RealFormat {
  /** The model file is tiny-<name>.gguf. */
  name: string;
  /** The family writes reasoning before its answer (gpt-oss analysis, think tags, [THINK]). */
  reasons: boolean;
  /** With tool_choice auto and tools offered the model calls: its template shows it the tools. */
  callsOnItsOwn: boolean;
  /**
   * A max_tokens that ends inside a required call's arguments (seed 42). Llama 3.3's arguments
   * are one token: its cut comes after them, before the end of the turn.
   */
  cutCallAt: number;
  /**
   * What Codex CLI's first turn gets: a call (of one of Codex's tools, arguments from the
   * grammar) that Codex runs before the model answers; the answer at once; the template's
   * refusal of Codex's two user messages in a row; or a call of a tool Codex does not have,
   * which the parser fails.
   */
  codex: 'call-then-answer' | 'answer' | 'template-refuses' | 'unknown-tool-fails';
  /**
   * What Claude Code's first turn gets (one user message, so no template refuses it): a call of
   * one of its tools, then the answer once the result is back; the answer at once; or a call of
   * a tool Claude Code does not have, which the parser fails.
   */
  claudeCode: 'call-then-answer' | 'answer' | 'unknown-tool-fails';
  /**
   * Two calls in one turn, asked for with "Paris and Berlin" in the prompt (the model's two-call
   * mark, scripts/real-llama/tiny_formats.py): under tool_choice auto, under required only (the
   * model does not see the tools), or never (the parser builds one call a turn, or the template
   * refuses two).
   */
  twoCalls: 'auto' | 'required' | 'never';
}

export const REAL_FORMATS: readonly RealFormat[] = [
  { name: 'gpt-oss', reasons: true, callsOnItsOwn: true, cutCallAt: 21, codex: 'call-then-answer', claudeCode: 'call-then-answer', twoCalls: 'never' },
  { name: 'qwen3-coder', reasons: false, callsOnItsOwn: true, cutCallAt: 12, codex: 'call-then-answer', claudeCode: 'call-then-answer', twoCalls: 'auto' },
  { name: 'glm-4.6', reasons: true, callsOnItsOwn: true, cutCallAt: 20, codex: 'call-then-answer', claudeCode: 'call-then-answer', twoCalls: 'auto' },
  // The template of the llama.cpp tree writes no tools into the prompt: the model cannot know of
  // them. Under required it writes its whole answer first (as Qwen3 does), then the call.
  { name: 'deepseek-v3.1', reasons: true, callsOnItsOwn: false, cutCallAt: 24, codex: 'answer', claudeCode: 'answer', twoCalls: 'required' },
  // Its template raises on two user messages in a row (Codex sends two; Claude Code one).
  { name: 'ministral-3', reasons: true, callsOnItsOwn: true, cutCallAt: 19, codex: 'template-refuses', claudeCode: 'call-then-answer', twoCalls: 'auto' },
  // The call is written whole in a few tokens (no grammar under auto). The model knows one
  // name, get_weather, and calls it whatever tools are offered.
  { name: 'llama-3.3', reasons: false, callsOnItsOwn: true, cutCallAt: 3, codex: 'unknown-tool-fails', claudeCode: 'unknown-tool-fails', twoCalls: 'never' },
];
