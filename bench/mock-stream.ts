/**
 * The bytes of a realistic streamed Chat Completions answer, pre-encoded once so the mock spends
 * no CPU building them per request (and so the normalizer micro-benchmark can replay them).
 * Shapes follow docs/wire-protocol.md: OpenAI chunks, or llama.cpp's (first delta
 * with `content: null`, model named by its path, `timings` in the usage chunk).
 */

export type MockDialect = 'openai' | 'llamacpp';

export interface MockStreamOptions {
  /** Answer chunks (content, reasoning or tool-call pieces), not counting role, finish, usage. */
  chunks: number;
  /** `field`: the first third as `reasoning_content`; `tags`: the same inside content, `<think>` split across chunks. */
  reasoning: 'off' | 'field' | 'tags';
  /** The last third as two interleaved tool calls whose names and arguments are split. */
  toolCalls: boolean;
  /** A usage chunk (`choices: []`) after the finish chunk. */
  usage: boolean;
  dialect: MockDialect;
}

export const DEFAULT_STREAM: MockStreamOptions = {
  chunks: 64,
  reasoning: 'off',
  toolCalls: false,
  usage: true,
  dialect: 'openai',
};

const WORDS = (
  'The quick answer is that a proxy should never be noticed by its users, and the best way to ' +
  'make sure of that is to measure what it costs on every chunk of every stream it forwards, ' +
  'side by side with the simplest program that could do the same job on the same machine.'
).split(' ');

/** Token-sized pieces of text (a leading space, as tokenizers emit them), cycling over WORDS. */
function word(i: number): string {
  const w = WORDS[i % WORDS.length] ?? 'x';
  return i === 0 ? w : ` ${w}`;
}

const TOOL_NAMES = ['lookup_weather', 'lookup_time'] as const;

/** One SSE event line per payload. */
function event(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export function buildMockStream(options: MockStreamOptions): Buffer[] {
  const { chunks, dialect } = options;
  const id = dialect === 'openai' ? 'chatcmpl-bench0123456789' : 'chatcmpl-Xb3nch0llama';
  const model = dialect === 'openai' ? 'bench-model' : '/models/muse-glimmer-30b-Q4_K_M.gguf';
  const created = 1_760_000_000;

  const chunk = (delta: Record<string, unknown>, finish: string | null): unknown =>
    dialect === 'openai'
      ? {
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          system_fingerprint: 'fp_bench',
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        }
      : {
          choices: [{ finish_reason: finish, index: 0, delta }],
          created,
          id,
          model,
          system_fingerprint: 'b11429-6a8f1c2e',
          object: 'chat.completion.chunk',
        };

  const out: string[] = [];
  out.push(event(chunk(dialect === 'openai' ? { role: 'assistant', content: '' } : { role: 'assistant', content: null }, null)));

  const reasoningChunks = options.reasoning === 'off' ? 0 : Math.floor(chunks / 3);
  const toolChunks = options.toolCalls ? Math.max(5, Math.floor(chunks / 3)) : 0;
  const contentChunks = Math.max(0, chunks - reasoningChunks - toolChunks);

  if (options.reasoning === 'field') {
    for (let i = 0; i < reasoningChunks; i++) out.push(event(chunk({ reasoning_content: word(i) }, null)));
  } else if (options.reasoning === 'tags') {
    // Markers split inside the tag, as docs/wire-protocol.md#reasoning says they can be: `<thi` +
    // `nk>...`, `</th` + `ink>`.
    for (let i = 0; i < reasoningChunks; i++) {
      let text = word(i);
      if (i === 0) text = `<thi`;
      else if (i === 1) text = `nk>${word(i)}`;
      else if (i === reasoningChunks - 2) text = `${word(i)}</th`;
      else if (i === reasoningChunks - 1) text = `ink>\n\n`;
      out.push(event(chunk({ content: text }, null)));
    }
  }

  for (let i = 0; i < contentChunks; i++) out.push(event(chunk({ content: word(i) }, null)));

  if (toolChunks > 0) {
    // Two calls, opened together, names split, then argument pieces alternating between them.
    const [a, b] = TOOL_NAMES;
    out.push(
      event(
        chunk(
          {
            tool_calls: [
              { index: 0, id: 'call_bench_a', type: 'function', function: { name: a.slice(0, 7), arguments: '' } },
              { index: 1, id: 'call_bench_b', type: 'function', function: { name: b.slice(0, 7), arguments: '' } },
            ],
          },
          null,
        ),
      ),
    );
    out.push(
      event(
        chunk(
          {
            tool_calls: [
              { index: 1, function: { name: b.slice(7), arguments: '{"city":' } },
              { index: 0, function: { name: a.slice(7), arguments: '{"city":' } },
            ],
          },
          null,
        ),
      ),
    );
    for (let i = 2; i < toolChunks - 1; i++) {
      const index = i % 2;
      const piece = i === 2 || i === 3 ? '"Par' : 'is';
      out.push(event(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null)));
    }
    out.push(event(chunk({ tool_calls: [{ index: 0, function: { arguments: '"}' } }, { index: 1, function: { arguments: '"}' } }] }, null)));
  }

  out.push(event(chunk({}, toolChunks > 0 ? 'tool_calls' : 'stop')));

  if (options.usage) {
    const usage = { prompt_tokens: 312, completion_tokens: chunks, total_tokens: 312 + chunks };
    out.push(
      event(
        dialect === 'openai'
          ? { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_bench', choices: [], usage }
          : {
              choices: [],
              created,
              id,
              model,
              system_fingerprint: 'b11429-6a8f1c2e',
              object: 'chat.completion.chunk',
              usage,
              timings: { prompt_n: 312, prompt_ms: 84.2, predicted_n: chunks, predicted_ms: 1510.7, predicted_per_second: 42.4 },
            },
      ),
    );
  }
  out.push('data: [DONE]\n\n');
  return out.map((s) => Buffer.from(s, 'utf8'));
}
