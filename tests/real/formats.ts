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
  /** A max_tokens that ends inside a required call's arguments. */
  cutCallAt: number;
}

export const REAL_FORMATS: readonly RealFormat[] = [
  { name: 'gpt-oss', reasons: true, callsOnItsOwn: true, cutCallAt: 14 },
  { name: 'qwen3-coder', reasons: false, callsOnItsOwn: true, cutCallAt: 6 },
  { name: 'glm-4.6', reasons: true, callsOnItsOwn: true, cutCallAt: 12 },
  // The template of the llama.cpp tree writes no tools into the prompt: the model cannot know of
  // them. Under required it writes its whole answer first (as Qwen3 does), then the call.
  { name: 'deepseek-v3.1', reasons: true, callsOnItsOwn: false, cutCallAt: 24 },
  { name: 'ministral-3', reasons: true, callsOnItsOwn: true, cutCallAt: 12 },
  // The call is written whole in a few tokens (no grammar under auto): two end inside it.
  { name: 'llama-3.3', reasons: false, callsOnItsOwn: true, cutCallAt: 2 },
];
