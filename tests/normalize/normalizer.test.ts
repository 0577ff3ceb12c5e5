import { describe, expect, it } from 'vitest';
import type { StreamContext } from '../../src/normalize/stream-context.js';
import { SvirError } from '../../src/errors.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { createNormalizer, type ChunkGather, type NormalizerStep } from '../../src/normalize/normalizer.js';
import type { Part } from '../../src/normalize/parts.js';
import { expectCleanStream } from '../helpers/expect-clean-stream.js';
import { fixtureContext, fixtureDeps } from '../helpers/replay-fixture.js';

interface Run {
  steps: NormalizerStep[];
  chunks: CleanChunk[];
  /** Deltas of the choice chunks, in order. */
  deltas: Record<string, unknown>[];
  finish: string | null | undefined;
  last: NormalizerStep;
}

/** Pushes each event's parts, then `done` unless told otherwise; collects everything. */
function run(events: Part[][], ctx: Partial<StreamContext> = {}, options: { end?: 'done' | 'cut' | 'none' } = {}): Run {
  const normalizer = createNormalizer(fixtureContext(ctx), fixtureDeps());
  const steps = events.map((parts) => normalizer.push(parts));
  const ending = options.end ?? 'done';
  if (ending === 'done') steps.push(normalizer.push([{ kind: 'done' }]));
  if (ending === 'cut') steps.push(normalizer.end());
  const chunks = steps.flatMap((step) => step.chunks);
  const choiceChunks = chunks.filter((chunk) => chunk.choices.length > 0);
  const last = steps[steps.length - 1] ?? { chunks: [], done: false };
  return {
    steps,
    chunks,
    deltas: choiceChunks.map((chunk) => chunk.choices[0]?.delta ?? {}),
    finish: choiceChunks[choiceChunks.length - 1]?.choices[0]?.finish_reason,
    last,
  };
}

const content = (text: string): Part => ({ kind: 'content', text });
const reasoning = (text: string): Part => ({ kind: 'reasoning', text });
const finish = (reason: string): Part => ({ kind: 'finish', reason });

describe('normalizer: identity', () => {
  it('keeps the first upstream id and created for the whole stream', () => {
    const { chunks } = run([
      [{ kind: 'meta', id: 'up-1', created: 1234 }, content('a')],
      [{ kind: 'meta', id: 'up-2', created: 9999 }, content('b')],
      [finish('stop')],
    ]);
    expect(chunks.map((chunk) => [chunk.id, chunk.created])).toEqual([
      ['up-1', 1234],
      ['up-1', 1234],
      ['up-1', 1234],
    ]);
  });

  it('takes identity seen before the first chunk even from an event that sent nothing', () => {
    const { chunks } = run([[{ kind: 'meta', created: 77 }], [{ kind: 'meta', id: 'late' }, content('x')]]);
    expect(chunks[0]).toMatchObject({ id: 'late', created: 77 });
  });

  it('makes id and created when the upstream gave none, or gave them empty', () => {
    const { chunks } = run([[{ kind: 'meta', id: '', created: 0 }, content('a')]]);
    expect(chunks[0]).toMatchObject({ id: 'chatcmpl-svir-1', created: 1_750_000_000 });
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-svir-1']));
  });

  it('does not change identity once a chunk went out', () => {
    const { chunks } = run([[content('a')], [{ kind: 'meta', id: 'too-late', created: 5 }, content('b')]]);
    expect(chunks.every((chunk) => chunk.id === 'chatcmpl-svir-1' && chunk.created === 1_750_000_000)).toBe(true);
  });

  it('names the model as the client did, with one choice at index 0', () => {
    const { chunks } = run([[content('a')]], { model: 'my-alias' });
    for (const chunk of chunks) {
      expect(chunk.model).toBe('my-alias');
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0]?.index).toBe(0);
    }
  });
});

describe('normalizer: deltas', () => {
  it('puts role in the first chunk only, with its payload', () => {
    const { deltas } = run([[content('Hel')], [content('lo')], [finish('stop')]]);
    expect(deltas).toEqual([{ role: 'assistant', content: 'Hel' }, { content: 'lo' }, {}]);
  });

  it('opens an empty answer with a role chunk of its own', () => {
    const { deltas, finish: reason } = run([[finish('stop')]]);
    expect(deltas).toEqual([{ role: 'assistant' }, {}]);
    expect(reason).toBe('stop');
  });

  it('sends nothing for an event with nothing to say', () => {
    const { steps } = run([[{ kind: 'meta', id: 'x' }], [content('')], [reasoning('')], [{ kind: 'refusal', text: '' }]], {}, { end: 'none' });
    expect(steps.every((step) => step.chunks.length === 0)).toBe(true);
  });

  it('sends one kind of payload per delta, in the order the parts came', () => {
    const { deltas } = run([[reasoning('think'), content('answer'), { kind: 'refusal', text: 'no' }, content('more')]]);
    expect(deltas).toEqual([
      { role: 'assistant', reasoning_content: 'think' },
      { content: 'answer' },
      { refusal: 'no' },
      { content: 'more' },
      {},
    ]);
  });

  it('joins text of one kind within one event', () => {
    const { deltas } = run([[reasoning('a'), reasoning('b'), content('c'), content('d')]]);
    expect(deltas.slice(0, 2)).toEqual([{ role: 'assistant', reasoning_content: 'ab' }, { content: 'cd' }]);
  });

  it('sends reasoning under the configured key', () => {
    const { deltas } = run([[reasoning('r')], [content('<think>t</think>c')]], { reasoningField: 'reasoning' });
    expect(deltas).toEqual([{ role: 'assistant', reasoning: 'r' }, { reasoning: 't' }, { content: 'c' }, {}]);
  });

  it('passes the rules of the clean dialect on a mixed stream', () => {
    const { chunks } = run(
      [
        [{ kind: 'meta', id: 'm' }, reasoning('x')],
        [content('<thi')],
        [content('nk>y</think>z')],
        [{ kind: 'tool', index: 0, id: 't', name: 'f', arguments: '{}' }],
        [finish('tool_calls'), { kind: 'usage', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }],
      ],
      { toolNames: ['f'], includeUsage: true },
    );
    expectCleanStream(chunks, { done: true, model: 'client-model' });
  });
});

describe('normalizer: think tags', () => {
  it('splits a think block that opens the answer in auto mode', () => {
    const { deltas } = run([[content('<thi')], [content('nk>b</think>c')]]);
    expect(deltas).toEqual([{ role: 'assistant', reasoning_content: 'b' }, { content: 'c' }, {}]);
  });

  it('reads a <think> in the middle of the answer as text', () => {
    const { deltas } = run([[content('a<thi')], [content('nk>b</think>c')]]);
    expect(deltas).toEqual([{ role: 'assistant', content: 'a<thi' }, { content: 'nk>b</think>c' }, {}]);
  });

  it('sends an unfinished marker at the very start, left at the end, as text before the finish', () => {
    const { deltas } = run([[content('<thi')]]);
    expect(deltas).toEqual([{ role: 'assistant', content: '<thi' }, {}]);
  });

  it('starts inside reasoning in open mode', () => {
    const { deltas } = run([[content('plan')], [content('</think>\n\nanswer')]], { reasoningTags: 'open' });
    expect(deltas).toEqual([{ role: 'assistant', reasoning_content: 'plan' }, { content: 'answer' }, {}]);
  });

  it('takes a <think> the model writes itself at the start in open mode as the marker', () => {
    const { deltas } = run([[content('<think>')], [content('plan</think>answer')]], { reasoningTags: 'open' });
    expect(deltas).toEqual([{ role: 'assistant', reasoning_content: 'plan' }, { content: 'answer' }, {}]);
  });

  it('reads open mode as auto when the request turned reasoning off: the whole answer is content', () => {
    const { deltas } = run([[content('One, two,')], [content(' three.')]], { reasoningTags: 'open', reasoningOff: true });
    expect(deltas).toEqual([{ role: 'assistant', content: 'One, two,' }, { content: ' three.' }, {}]);
    const tagged = run([[content('<think>r</think>A')]], { reasoningTags: 'open', reasoningOff: true });
    expect(tagged.deltas).toEqual([{ role: 'assistant', reasoning_content: 'r' }, { content: 'A' }, {}]);
  });

  it('never reads tags under structured output, in any mode', () => {
    for (const reasoningTags of ['auto', 'open'] as const) {
      const { deltas } = run([[content('{"note":"<think>x</think>"')], [content('}')]], { reasoningTags, structuredOutput: true });
      expect(deltas, reasoningTags).toEqual([{ role: 'assistant', content: '{"note":"<think>x</think>"' }, { content: '}' }, {}]);
      const leading = run([[content('<think>{}</think>')]], { reasoningTags, structuredOutput: true });
      expect(leading.deltas, reasoningTags).toEqual([{ role: 'assistant', content: '<think>{}</think>' }, {}]);
    }
  });

  it('leaves content untouched when off', () => {
    const { deltas } = run([[content('<think>x</think>y')]], { reasoningTags: 'off' });
    expect(deltas).toEqual([{ role: 'assistant', content: '<think>x</think>y' }, {}]);
  });

  it('never puts reasoning in content nor sends it twice', () => {
    const { deltas } = run([[reasoning('r1')], [content('<think>r2</think>')], [content('\n\nA')]]);
    const contentText = deltas.map((delta) => delta.content ?? '').join('');
    const reasoningText = deltas.map((delta) => delta.reasoning_content ?? '').join('');
    expect(contentText).toBe('A');
    expect(reasoningText).toBe('r1r2');
  });
});

describe('normalizer: the whitespace between reasoning and the answer (docs/contract.md#clean-dialect)', () => {
  const call = (index: number, fields: { id?: string; name?: string; arguments?: string }): Part => ({ kind: 'tool', index, ...fields });
  const text = (deltas: Record<string, unknown>[], key: string): string => deltas.map((delta) => (typeof delta[key] === 'string' ? delta[key] : '')).join('');

  it.each<[string, Part[][], Partial<StreamContext>, string, string]>([
    ['LM Studio: "\\n\\n" then the answer', [[reasoning('Let me think.')], [content('\n\n')], [content('Four.')]], {}, 'Let me think.', 'Four.'],
    ['the separator in the same piece as the answer', [[reasoning('r')], [content('\n\nFour.')]], {}, 'r', 'Four.'],
    ['the separator split across events', [[reasoning('r')], [content('\n')], [content(' \n\t')], [content('\r\nFo')], [content('ur.')]], {}, 'r', 'Four.'],
    ['an answer right after the reasoning, no separator', [[reasoning('r')], [content('Four.')]], {}, 'r', 'Four.'],
    ['no reasoning at all: leading whitespace is the answer\'s', [[content('\n\nFour.')]], {}, '', '\n\nFour.'],
    ['whitespace inside the answer stays', [[reasoning('r')], [content('One.')], [content('\n\nTwo.')]], {}, 'r', 'One.\n\nTwo.'],
    ['reasoning that goes on after a separator', [[reasoning('r1')], [content('\n\n')], [reasoning('r2')], [content('\n\nA')]], {}, 'r1r2', 'A'],
    ['only a separator, then the finish', [[reasoning('r')], [content('\n\n')], [finish('stop')]], {}, 'r', ''],
    ['think tags: the "\\n\\n" after </think>', [[content('<think>r</thi')], [content('nk>\n')], [content('\nA')]], {}, 'r', 'A'],
    ['a template that opened <think>', [[content('plan')], [content('</think>\n\n')], [content('answer')]], { reasoningTags: 'open' }, 'plan', 'answer'],
    ['an empty think block (GLM-4.6, reasoning off, markers in content)', [[content('<think></think>\n')], [content('Hello')]], {}, '', 'Hello'],
    ['an empty think block cut across events', [[content('<think></th')], [content('ink>')], [content(' \n')], [content('\nHello')]], {}, '', 'Hello'],
  ])('%s', (_name, events, ctx, reasoningText, answerText) => {
    const { deltas } = run(events, ctx);
    expect(text(deltas, 'reasoning_content')).toBe(reasoningText);
    expect(text(deltas, 'content')).toBe(answerText);
    // No chunk of whitespace alone between them.
    expect(deltas.some((delta) => typeof delta['content'] === 'string' && delta['content'].trim() === '' && reasoningText !== '')).toBe(false);
  });

  it('drops the separator ahead of a tool call, and the call goes out as the first thing after the reasoning', () => {
    const { deltas, finish: reason } = run([[reasoning('Locker 4 needs the tool.')], [content('\n\n')], [call(0, { id: 'c', name: 'open_locker', arguments: '{"number":4}' })]], {
      toolNames: ['open_locker'],
    });
    expect(deltas).toEqual([
      { role: 'assistant', reasoning_content: 'Locker 4 needs the tool.' },
      { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'open_locker', arguments: '{"number":4}' } }] },
      {},
    ]);
    expect(reason).toBe('tool_calls');
  });

  it('drops the "\n" after an empty think block ahead of a call (GLM-4.6 with reasoning off and markers in content)', () => {
    const { deltas } = run([[content('<think></think>\n')], [call(0, { id: 'c', name: 'f', arguments: '{}' })]], { toolNames: ['f'] });
    expect(deltas).toEqual([{ role: 'assistant', tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, {}]);
  });

  it('keeps text after a call as it came: the separator is only the one after reasoning', () => {
    const { deltas } = run([[reasoning('r')], [call(0, { id: 'c', name: 'f', arguments: '{}' })], [content('\n\nDone.')]], { toolNames: ['f'] });
    expect(text(deltas, 'content')).toBe('\n\nDone.');
  });

  it('keeps a refusal after the separator, and its own text', () => {
    const { deltas } = run([[reasoning('r')], [content('\n\n')], [{ kind: 'refusal', text: 'No.' }], [content(' ok')]]);
    expect(deltas).toEqual([{ role: 'assistant', reasoning_content: 'r' }, { refusal: 'No.' }, { content: ' ok' }, {}]);
  });
});

describe('normalizer: parallel_tool_calls false (ctx.singleToolCall)', () => {
  const call = (index: number, fields: { id?: string; name?: string; arguments?: string }): Part => ({ kind: 'tool', index, ...fields });
  const names = (deltas: Record<string, unknown>[]): string[] =>
    deltas.flatMap((delta) => (Array.isArray(delta['tool_calls']) ? (delta['tool_calls'] as { function: { name?: string } }[]) : [])).flatMap((piece) => (piece.function.name === undefined ? [] : [piece.function.name]));

  it.each<[string, Part[][], boolean, string[], string[] | undefined]>([
    ['two whole calls: the first goes out', [[call(0, { id: 'a', name: 'read', arguments: '{}' }), call(1, { id: 'b', name: 'write', arguments: '{}' })]], true, ['read'], ['tool call write not sent (parallel_tool_calls is false)']],
    [
      'three calls in pieces, interleaved by the server',
      [
        [call(0, { id: 'a', name: 'read', arguments: '{"p":' }), call(1, { id: 'b', name: 'write', arguments: '{' })],
        [call(2, { id: 'c', name: 'list', arguments: '{}' }), call(1, { arguments: '}' }), call(0, { arguments: '1}' })],
      ],
      true,
      ['read'],
      ['tool call write not sent (parallel_tool_calls is false)', 'tool call list not sent (parallel_tool_calls is false)'],
    ],
    ['one call: nothing to drop, nothing noted', [[call(0, { id: 'a', name: 'read', arguments: '{}' })]], true, ['read'], undefined],
    ['parallel calls allowed: every call goes out', [[call(0, { id: 'a', name: 'read', arguments: '{}' }), call(1, { id: 'b', name: 'write', arguments: '{}' })]], false, ['read', 'write'], undefined],
  ])('%s', (_name, events, single, sent, notes) => {
    const { deltas, last, finish: reason } = run(events, { toolNames: ['read', 'write', 'list'], singleToolCall: single });
    expect(names(deltas)).toEqual(sent);
    expect(deltas.flatMap((delta) => (Array.isArray(delta['tool_calls']) ? (delta['tool_calls'] as { index: number }[]) : [])).every((piece) => single ? piece.index === 0 : true)).toBe(true);
    expect(last.done).toBe(true);
    expect(last.notes).toEqual(notes);
    expect(reason).toBe('tool_calls');
  });

  it('the kept call is whole: its arguments joined as the server sent them', () => {
    const { deltas } = run(
      [[call(0, { id: 'a', name: 'read', arguments: '{"p":' }), call(1, { id: 'b', name: 'write', arguments: '{}' })], [call(0, { arguments: '1}' })]],
      { toolNames: ['read', 'write'], singleToolCall: true },
    );
    const args = deltas.flatMap((delta) => (Array.isArray(delta['tool_calls']) ? (delta['tool_calls'] as { function: { arguments: string } }[]) : [])).map((piece) => piece.function.arguments).join('');
    expect(args).toBe('{"p":1}');
  });

  it('pushTo gives the notes on the step that ends the stream', () => {
    const normalizer = createNormalizer(fixtureContext({ toolNames: ['read', 'write'], singleToolCall: true }), fixtureDeps());
    const gather: ChunkGather = { chunks: undefined };
    expect(normalizer.pushTo([call(0, { id: 'a', name: 'read', arguments: '{}' }), call(1, { id: 'b', name: 'write', arguments: '{}' })], gather)).toBeUndefined();
    const end = normalizer.pushTo([{ kind: 'done' }], gather);
    expect(end?.notes).toEqual(['tool call write not sent (parallel_tool_calls is false)']);
  });
});

describe('normalizer: tool calls', () => {
  const tool = (index: number, fields: { id?: string; name?: string; arguments?: string } = {}): Part => ({ kind: 'tool', index, ...fields });

  it('sends held calls before the finish chunk', () => {
    const { deltas, finish: reason } = run([[tool(0, { id: 'c', name: 'read', arguments: '{"p":1}' })]], { toolNames: ['read', 'read_file'] });
    expect(deltas).toEqual([
      { role: 'assistant', tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }] },
      {},
    ]);
    expect(reason).toBe('tool_calls');
  });

  it('sends text that arrives between tool pieces in its own chunk', () => {
    const { deltas } = run([[content('\n\n'), tool(0, { id: 'c', name: 'f', arguments: '{' })], [tool(0, { arguments: '}' })]], { toolNames: ['f'] });
    expect(deltas).toEqual([
      { role: 'assistant', content: '\n\n' },
      { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '}' } }] },
      {},
    ]);
  });

  it('makes call ids with deps.makeId', () => {
    const { deltas } = run([[tool(0, { name: 'f', arguments: '{}' })]], { toolNames: ['f'] });
    expect(deltas[0]?.tool_calls).toEqual([{ index: 0, id: 'call_svir_1', type: 'function', function: { name: 'f', arguments: '{}' } }]);
  });
});

describe('normalizer: finish reason', () => {
  const call: Part = { kind: 'tool', index: 0, id: 'c', name: 'f', arguments: '{}' };
  const cases: [string, Part[][], string][] = [
    ['stop stays stop', [[content('a'), finish('stop')]], 'stop'],
    ['a named call finished with stop (vLLM) is tool_calls', [[call], [finish('stop')]], 'tool_calls'],
    ['tool_calls without any call is stop', [[content('a'), finish('tool_calls')]], 'stop'],
    ['length cuts calls too', [[call], [finish('length')]], 'length'],
    ['content_filter stays', [[call], [finish('content_filter')]], 'content_filter'],
    ['a filtered verdict after stop is content_filter', [[content('a'), finish('stop')], [{ kind: 'filtered' }]], 'content_filter'],
    ['a filtered verdict outranks length', [[finish('length')], [{ kind: 'filtered' }]], 'content_filter'],
    ['content_filter then a later stop stays content_filter', [[finish('content_filter')], [finish('stop')]], 'content_filter'],
    ['eos is stop', [[content('a'), finish('eos')]], 'stop'],
    ['max_tokens is length', [[content('a'), finish('max_tokens')]], 'length'],
    ['an unknown reason is stop', [[content('a'), finish('finished_somehow')]], 'stop'],
    ['no finish before [DONE] is stop', [[content('a')]], 'stop'],
  ];
  for (const [name, events, expected] of cases) {
    it(name, () => {
      const result = run(events, { toolNames: ['f'] });
      expect(result.finish).toBe(expected);
      expectCleanStream(result.chunks, { done: true });
    });
  }

  it('holds the finish chunk until [DONE]', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    expect(normalizer.push([content('a')]).chunks).toHaveLength(1);
    const atFinish = normalizer.push([finish('stop')]);
    expect(atFinish).toEqual({ chunks: [], done: false });
    const atDone = normalizer.push([{ kind: 'done' }]);
    expect(atDone.done).toBe(true);
    expect(atDone.chunks.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual(['stop']);
  });
});

describe('normalizer: usage', () => {
  const usage: Part = {
    kind: 'usage',
    usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20, completion_tokens_details: { reasoning_tokens: 5 } },
  };

  it('sends one usage chunk after the finish when asked and sent', () => {
    const { chunks } = run([[content('a'), finish('stop')], [usage]], { includeUsage: true });
    const last = chunks[chunks.length - 1];
    expect(last).toEqual({
      id: 'chatcmpl-svir-1',
      object: 'chat.completion.chunk',
      created: 1_750_000_000,
      model: 'client-model',
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20, completion_tokens_details: { reasoning_tokens: 5 } },
    });
    expect(chunks[chunks.length - 2]?.choices[0]?.finish_reason).toBe('stop');
  });

  it('forwards no usage unasked', () => {
    const { chunks } = run([[content('a'), finish('stop')], [usage]], { includeUsage: false });
    expect(chunks.some((chunk) => chunk.usage !== undefined || chunk.choices.length === 0)).toBe(false);
  });

  it('invents no usage the server did not send', () => {
    const { chunks } = run([[content('a'), finish('stop')]], { includeUsage: true });
    expect(chunks.some((chunk) => chunk.choices.length === 0)).toBe(false);
  });
});

describe('normalizer: logprobs', () => {
  const lp = (token: string): Part => ({ kind: 'logprobs', value: { content: [{ token, logprob: -0.5 }], refusal: null } });

  it('attaches logprobs to the chunk of their event when asked', () => {
    const { chunks } = run([[content('a'), lp('a')], [content('b')]], { logprobs: true });
    expect(chunks[0]?.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: 'a' },
      logprobs: { content: [{ token: 'a', logprob: -0.5 }], refusal: null },
      finish_reason: null,
    });
    expect('logprobs' in (chunks[1]?.choices[0] ?? {})).toBe(false);
  });

  it('drops logprobs the client did not ask for', () => {
    const { chunks } = run([[content('a'), lp('a')]], { logprobs: false });
    expect(chunks.every((chunk) => chunk.choices.every((choice) => !('logprobs' in choice)))).toBe(true);
  });

  it('carries logprobs of held text to the next chunk, joined', () => {
    const { chunks } = run([[content('<thi'), lp('<thi')], [content('s'), lp('s')]], { logprobs: true });
    expect(chunks[0]?.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '<this' },
      logprobs: {
        content: [
          { token: '<thi', logprob: -0.5 },
          { token: 's', logprob: -0.5 },
        ],
        refusal: null,
      },
      finish_reason: null,
    });
  });

  it('puts logprobs still held at the end on the finish chunk', () => {
    const { chunks } = run([[content('<think>'), lp('<think>')]], { logprobs: true });
    expect(chunks.map((chunk) => chunk.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant' }, logprobs: { content: [{ token: '<think>', logprob: -0.5 }], refusal: null }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
  });
});

describe('normalizer: errors and the end of the stream', () => {
  const failure = new SvirError('upstream_error', { source: 'upstream', message: 'boom' });

  it('ends with the error of an error part, and sends nothing more', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    expect(normalizer.push([content('partial')]).chunks).toHaveLength(1);
    expect(normalizer.push([content('lost'), { kind: 'error', error: failure }])).toEqual({ chunks: [], error: failure, done: false });
    expect(normalizer.push([content('after')])).toEqual({ chunks: [], done: false });
    expect(normalizer.end()).toEqual({ chunks: [], done: false });
  });

  it('fails a stream that ends without [DONE], naming the backend', () => {
    const { last } = run([[content('a'), finish('stop')]], { backend: 'my-vllm' }, { end: 'cut' });
    expect(last.chunks).toEqual([]);
    expect(last.done).toBe(false);
    expect(last.error).toBeInstanceOf(SvirError);
    expect(last.error?.code).toBe('upstream_error');
    expect(last.error?.source).toBe('upstream');
    expect(last.error?.message).toContain('my-vllm');
    expect(last.error?.message).toContain('[DONE]');
  });

  it('fails with upstream_error naming a finish reason that means a cut answer (abort, error)', () => {
    for (const reason of ['abort', 'error', ' Abort ']) {
      const normalizer = createNormalizer(fixtureContext({ backend: 'my-vllm' }), fixtureDeps());
      expect(normalizer.push([content('The answer is')]).chunks).toHaveLength(1);
      const step = normalizer.push([content(' 4'), finish(reason)]);
      expect(step.chunks).toEqual([]);
      expect(step.done).toBe(false);
      expect(step.error?.code).toBe('upstream_error');
      expect(step.error?.source).toBe('upstream');
      expect(step.error?.message).toContain(`finish reason "${reason.trim()}"`);
      expect(step.error?.message).toContain('my-vllm');
      // The [DONE] that follows changes nothing: the stream already failed.
      expect(normalizer.push([{ kind: 'done' }])).toEqual({ chunks: [], done: false });
    }
  });

  it('names a cut reason without the whitespace around it', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    const step = normalizer.push([finish('\tError\n')]);
    expect(step.error?.message).toContain('finish reason "Error"');
  });

  it('sends nothing after [DONE], and ends cleanly after it', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    normalizer.push([content('a')]);
    expect(normalizer.push([{ kind: 'done' }, content('ignored')]).done).toBe(true);
    expect(normalizer.push([content('late')])).toEqual({ chunks: [], done: true });
    expect(normalizer.end()).toEqual({ chunks: [], done: true });
  });
});

describe('normalizer: pushTo (the events of one read into one list)', () => {
  const events: Part[][] = [
    [{ kind: 'meta', id: 'up', created: 5 }, reasoning('r')],
    [content('<think>no</think>a')],
    [{ kind: 'tool', index: 0, id: 'call-1', name: 'f', arguments: '{}' }],
    [content('b'), finish('stop')],
    [{ kind: 'usage', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }],
    [{ kind: 'done' }],
  ];

  it('makes the same chunks as push, in order, in the one list it gathers, with the last step holding that list', () => {
    const byPush = run(events.slice(0, -1), { includeUsage: true });
    const normalizer = createNormalizer(fixtureContext({ includeUsage: true }), fixtureDeps());
    const gather: ChunkGather = { chunks: undefined };
    const ends = events.map((parts) => normalizer.pushTo(parts, gather));
    expect(ends.slice(0, -1)).toEqual(events.slice(0, -1).map(() => undefined));
    const last = ends[ends.length - 1];
    expect(last?.done).toBe(true);
    expect(last?.chunks).toBe(gather.chunks);
    expect(gather.chunks).toEqual(byPush.chunks);
  });

  it('makes no list for events that make no chunk', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    const gather: ChunkGather = { chunks: undefined };
    expect(normalizer.pushTo([{ kind: 'meta', id: 'x' }], gather)).toBeUndefined();
    expect(normalizer.pushTo([content('')], gather)).toBeUndefined();
    expect(gather.chunks).toBeUndefined();
  });

  it('keeps the chunks of the events before a failure and drops the failed event own, as push does', () => {
    const failure = new SvirError('upstream_error', { message: 'boom' });
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    const gather: ChunkGather = { chunks: undefined };
    expect(normalizer.pushTo([content('a')], gather)).toBeUndefined();
    expect(gather.chunks).toHaveLength(1);
    const end = normalizer.pushTo([content('b'), { kind: 'tool', index: 0, id: 'c', name: 'f', arguments: '' }, { kind: 'error', error: failure }], gather);
    expect(end).toMatchObject({ error: failure, done: false });
    expect(end?.chunks).toBe(gather.chunks);
    expect(gather.chunks?.map((chunk) => chunk.choices[0]?.delta.content)).toEqual(['a']);
    // Closed: nothing more, and the list is left as it is.
    expect(normalizer.pushTo([content('c')], gather)).toMatchObject({ done: false });
    expect(gather.chunks).toHaveLength(1);
  });

  it('leaves a step push returned untouched by a later pushTo or end()', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    const step = normalizer.push([content('a')]);
    expect(step.chunks).toHaveLength(1);
    const gather: ChunkGather = { chunks: undefined };
    expect(normalizer.pushTo([content('b')], gather)).toBeUndefined();
    expect(gather.chunks).toHaveLength(1);
    expect(normalizer.end().error?.code).toBe('upstream_error');
    expect(step.chunks).toHaveLength(1);
    expect(gather.chunks).toHaveLength(1);
  });
});
