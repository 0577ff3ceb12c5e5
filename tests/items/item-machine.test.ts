/**
 * The item machine by table: clean chunks in, the sink's calls out (src/items/README.md), for
 * every transition of its phases; the ordering rules on every generic fixture, whole and split
 * at seeded byte offsets.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ItemMachine } from '../../src/items/item-machine.js';
import type { ItemSink, ItemsEnd, ItemStatus, PartKind } from '../../src/items/item-sink.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import type { Usage } from '../../src/normalize/parts.js';
import { loadFixtures, runLoadedFixture, splitAtSeededOffsets } from '../helpers/replay-fixture.js';
import { cleanChunkMaker } from '../helpers/clean-chunk-maker.js';

/** A sink that writes each call down as one line. */
class RecordingSink implements ItemSink<string> {
  readonly calls: string[] = [];
  start(): void {
    this.calls.push('start');
  }
  openReasoning(item: number): void {
    this.calls.push(`openReasoning ${item}`);
  }
  reasoningDelta(text: string): void {
    this.calls.push(`reasoningDelta ${text}`);
  }
  closeReasoning(text: string, status: ItemStatus): void {
    this.calls.push(`closeReasoning ${text} ${status}`);
  }
  openMessage(item: number): void {
    this.calls.push(`openMessage ${item}`);
  }
  openPart(kind: PartKind, part: number): void {
    this.calls.push(`openPart ${kind} ${part}`);
  }
  partDelta(kind: PartKind, text: string): void {
    this.calls.push(`partDelta ${kind} ${text}`);
  }
  closePart(kind: PartKind, text: string): void {
    this.calls.push(`closePart ${kind} ${text}`);
  }
  closeMessage(status: ItemStatus): void {
    this.calls.push(`closeMessage ${status}`);
  }
  openCall(item: number, callId: string, name: string): void {
    this.calls.push(`openCall ${item} ${callId} ${name}`);
  }
  callDelta(args: string): void {
    this.calls.push(`callDelta ${args}`);
  }
  closeCall(args: string, status: ItemStatus): void {
    this.calls.push(`closeCall ${args} ${status}`);
  }
  finish(end: ItemsEnd): void {
    this.calls.push(`finish ${end.reason ?? '-'} cut=${end.cut} usage=${end.usage?.total_tokens ?? '-'}`);
  }
  fail(failure: string, usage: Usage | undefined): void {
    this.calls.push(`fail ${failure} usage=${usage?.total_tokens ?? '-'}`);
  }
}

const chunks = cleanChunkMaker({ id: 'c', model: 'm' });
const { chunk } = chunks;

function usage(total: number): CleanChunk {
  return chunks.usage({ prompt_tokens: 1, completion_tokens: total - 1, total_tokens: total });
}

function call(index: number, args: string, id?: string, name?: string): CleanChunk {
  return chunk({ tool_calls: [{ index, ...(id === undefined ? {} : { id, type: 'function' as const }), function: { ...(name === undefined ? {} : { name }), arguments: args } }] });
}

type End = 'finish' | { fail: string } | 'open';

function record(chunks: readonly CleanChunk[], end: End, reasoningField = 'reasoning_content'): string[] {
  const sink = new RecordingSink();
  const machine = new ItemMachine<string>({ reasoningField }, sink);
  for (const c of chunks) machine.push(c);
  if (end === 'finish') machine.finish();
  else if (end !== 'open') machine.fail(end.fail);
  return sink.calls;
}

const table: { name: string; chunks: CleanChunk[]; end: End; calls: string[]; reasoningField?: string }[] = [
  {
    name: 'Waiting → finish: start, then finish (an empty answer)',
    chunks: [],
    end: 'finish',
    calls: ['start', 'finish - cut=false usage=-'],
  },
  {
    name: 'Waiting → fail: start, then fail',
    chunks: [],
    end: { fail: 'boom' },
    calls: ['start', 'fail boom usage=-'],
  },
  {
    name: 'the first chunk starts the sink, even with nothing in it',
    chunks: [chunk({ role: 'assistant' })],
    end: 'open',
    calls: ['start'],
  },
  {
    name: 'Between → Text → finish stop: one message, one text part, the joined text at close',
    chunks: [chunk({ role: 'assistant' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usage(7)],
    end: 'finish',
    calls: ['start', 'openMessage 0', 'openPart text 0', 'partDelta text Hel', 'partDelta text lo', 'closePart text Hello', 'closeMessage completed', 'finish stop cut=false usage=7'],
  },
  {
    name: 'Reasoning → Text: the reasoning item closes completed before the message opens as item 1',
    chunks: [chunk({ reasoning_content: 'Think' }), chunk({ reasoning_content: 'ing' }), chunk({ content: 'Hi' }), chunk({}, 'stop')],
    end: 'finish',
    calls: [
      'start',
      'openReasoning 0',
      'reasoningDelta Think',
      'reasoningDelta ing',
      'closeReasoning Thinking completed',
      'openMessage 1',
      'openPart text 0',
      'partDelta text Hi',
      'closePart text Hi',
      'closeMessage completed',
      'finish stop cut=false usage=-',
    ],
  },
  {
    name: 'reasoning under the configured field; the default key is then nothing',
    chunks: [chunk({ thoughts: 'T', reasoning_content: 'ignored' }), chunk({}, 'stop')],
    end: 'finish',
    reasoningField: 'thoughts',
    calls: ['start', 'openReasoning 0', 'reasoningDelta T', 'closeReasoning T completed', 'finish stop cut=false usage=-'],
  },
  {
    name: 'one chunk with reasoning and content: reasoning first, then the message',
    chunks: [chunk({ reasoning_content: 'r', content: 'a' })],
    end: 'finish',
    calls: ['start', 'openReasoning 0', 'reasoningDelta r', 'closeReasoning r completed', 'openMessage 1', 'openPart text 0', 'partDelta text a', 'closePart text a', 'closeMessage completed', 'finish - cut=false usage=-'],
  },
  {
    name: 'Text → Refusal → Text: parts of one message, one open at a time',
    chunks: [chunk({ content: 'I ' }), chunk({ refusal: 'can' }), chunk({ refusal: 'not' }), chunk({ content: '.' })],
    end: 'finish',
    calls: [
      'start',
      'openMessage 0',
      'openPart text 0',
      'partDelta text I ',
      'closePart text I ',
      'openPart refusal 1',
      'partDelta refusal can',
      'partDelta refusal not',
      'closePart refusal cannot',
      'openPart text 2',
      'partDelta text .',
      'closePart text .',
      'closeMessage completed',
      'finish - cut=false usage=-',
    ],
  },
  {
    name: 'Text → Call → Call: each call its own item, args joined at close; a piece without arguments opens only',
    chunks: [
      chunk({ content: 'Calling.' }),
      call(0, '', 'call_a', 'weather'),
      call(0, '{"city":'),
      call(0, '"Paris"}'),
      call(1, '{}', 'call_b', 'ns__g'),
      chunk({}, 'tool_calls'),
      usage(15),
    ],
    end: 'finish',
    calls: [
      'start',
      'openMessage 0',
      'openPart text 0',
      'partDelta text Calling.',
      'closePart text Calling.',
      'closeMessage completed',
      'openCall 1 call_a weather',
      'callDelta {"city":',
      'callDelta "Paris"}',
      'closeCall {"city":"Paris"} completed',
      'openCall 2 call_b ns__g',
      'callDelta {}',
      'closeCall {} completed',
      'finish tool_calls cut=false usage=15',
    ],
  },
  {
    name: 'Call → Call on a new id with the same chat index: a new item',
    chunks: [call(0, 'a', 'call_1', 'f'), call(0, 'b', 'call_2', 'f')],
    end: 'finish',
    calls: ['start', 'openCall 0 call_1 f', 'callDelta a', 'closeCall a completed', 'openCall 1 call_2 f', 'callDelta b', 'closeCall b completed', 'finish - cut=false usage=-'],
  },
  {
    name: 'a call piece with neither id nor name opens a call with empty strings',
    chunks: [call(3, 'x')],
    end: 'finish',
    calls: ['start', 'openCall 0  ', 'callDelta x', 'closeCall x completed', 'finish - cut=false usage=-'],
  },
  {
    name: 'Call → Reasoning: the call closes, a second reasoning item opens',
    chunks: [chunk({ reasoning_content: 'a' }), call(0, '{}', 'c', 'f'), chunk({ reasoning_content: 'b' })],
    end: 'finish',
    calls: [
      'start',
      'openReasoning 0',
      'reasoningDelta a',
      'closeReasoning a completed',
      'openCall 1 c f',
      'callDelta {}',
      'closeCall {} completed',
      'openReasoning 2',
      'reasoningDelta b',
      'closeReasoning b completed',
      'finish - cut=false usage=-',
    ],
  },
  {
    name: 'finish length: the open item closes incomplete, the end says cut',
    chunks: [chunk({ content: 'Once upon' }), chunk({}, 'length')],
    end: 'finish',
    calls: ['start', 'openMessage 0', 'openPart text 0', 'partDelta text Once upon', 'closePart text Once upon', 'closeMessage incomplete', 'finish length cut=true usage=-'],
  },
  {
    name: 'finish content_filter: cut, the open reasoning closes incomplete',
    chunks: [chunk({ reasoning_content: 'hm' }), chunk({}, 'content_filter')],
    end: 'finish',
    calls: ['start', 'openReasoning 0', 'reasoningDelta hm', 'closeReasoning hm incomplete', 'finish content_filter cut=true usage=-'],
  },
  {
    name: 'finish length after the items closed: only the end says cut',
    chunks: [chunk({}, 'length')],
    end: 'finish',
    calls: ['start', 'finish length cut=true usage=-'],
  },
  {
    name: 'fail while a call is open: it closes incomplete with what it had, then fail with the usage seen',
    chunks: [usage(3), call(0, '{"a"', 'c', 'f')],
    end: { fail: 'cut off' },
    calls: ['start', 'openCall 0 c f', 'callDelta {"a"', 'closeCall {"a" incomplete', 'fail cut off usage=3'],
  },
  {
    name: 'fail while a refusal part is open: part, then message close, then fail',
    chunks: [chunk({ refusal: 'no' })],
    end: { fail: 'x' },
    calls: ['start', 'openMessage 0', 'openPart refusal 0', 'partDelta refusal no', 'closePart refusal no', 'closeMessage incomplete', 'fail x usage=-'],
  },
  {
    name: 'empty text is no input',
    chunks: [chunk({ reasoning_content: '', content: '', refusal: '' }), chunk({ content: 'a' }), chunk({ reasoning_content: '' }), chunk({ content: 'b' })],
    end: 'finish',
    calls: ['start', 'openMessage 0', 'openPart text 0', 'partDelta text a', 'partDelta text b', 'closePart text ab', 'closeMessage completed', 'finish - cut=false usage=-'],
  },
  {
    name: 'the last usage and the last finish reason win',
    chunks: [usage(2), chunk({}, 'length'), chunk({}, 'stop'), usage(9)],
    end: 'finish',
    calls: ['start', 'finish stop cut=false usage=9'],
  },
];

describe('the item machine, chunks in → sink calls out', () => {
  it.each(table)('$name', ({ chunks, end, calls, reasoningField }) => {
    expect(record(chunks, end, reasoningField)).toEqual(calls);
  });

  it('Ended ignores everything: chunks, a second finish, a fail', () => {
    const sink = new RecordingSink();
    const machine = new ItemMachine<string>({ reasoningField: 'reasoning_content' }, sink);
    machine.push(chunk({ content: 'a' }));
    machine.fail('first');
    const calls = [...sink.calls];
    machine.push(chunk({ content: 'late' }));
    machine.push(usage(5));
    machine.finish();
    machine.fail('second');
    expect(sink.calls).toEqual(calls);
    expect(machine.ended).toBe(true);
  });

  it('started and ended follow the phases', () => {
    const machine = new ItemMachine<string>({ reasoningField: 'reasoning_content' }, new RecordingSink());
    expect([machine.started, machine.ended]).toEqual([false, false]);
    machine.push(chunk({ role: 'assistant' }));
    expect([machine.started, machine.ended]).toEqual([true, false]);
    machine.finish();
    expect([machine.started, machine.ended]).toEqual([true, true]);
  });
});

/**
 * The ordering rules of src/items/README.md, checked on any call list: start first, one end
 * last; items numbered 0, 1, 2... one open at a time; parts likewise inside a message; every
 * open closed once, with the joined deltas as its text.
 */
function expectOrdered(calls: readonly string[]): void {
  expect(calls[0]).toBe('start');
  const ends = calls.filter((c) => c.startsWith('finish ') || c.startsWith('fail '));
  expect(ends).toHaveLength(1);
  expect(calls.at(-1)).toBe(ends[0]);
  let open: 'reasoning' | 'message' | 'call' | undefined;
  let part: PartKind | undefined;
  let items = 0;
  let parts = 0;
  let text = '';
  for (const c of calls.slice(1, -1)) {
    const [verb = '', ...rest] = c.split(' ');
    const arg = rest.join(' ');
    if (verb === 'openReasoning' || verb === 'openMessage' || verb === 'openCall') {
      expect(open, c).toBeUndefined();
      expect(Number(rest[0])).toBe(items++);
      open = verb === 'openReasoning' ? 'reasoning' : verb === 'openMessage' ? 'message' : 'call';
      parts = 0;
      text = '';
    } else if (verb === 'openPart') {
      expect([open, part]).toEqual(['message', undefined]);
      part = rest[0] as PartKind;
      expect(Number(rest[1])).toBe(parts++);
      text = '';
    } else if (verb === 'reasoningDelta' || verb === 'callDelta') {
      expect(open).toBe(verb === 'reasoningDelta' ? 'reasoning' : 'call');
      expect(arg).not.toBe('');
      text += arg;
    } else if (verb === 'partDelta') {
      expect(rest[0]).toBe(part);
      text += rest.slice(1).join(' ');
    } else if (verb === 'closePart') {
      expect(rest[0]).toBe(part);
      expect(rest.slice(1).join(' ')).toBe(text);
      part = undefined;
    } else if (verb === 'closeMessage') {
      expect([open, part]).toEqual(['message', undefined]);
      open = undefined;
    } else {
      expect(verb === 'closeReasoning' || verb === 'closeCall', c).toBe(true);
      expect(open).toBe(verb === 'closeReasoning' ? 'reasoning' : 'call');
      expect(arg).toBe(`${text} ${rest.at(-1) ?? ''}`);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
}

const fixtures = loadFixtures(fileURLToPath(new URL('../fixtures/generic/', import.meta.url)));
const SEEDS = Array.from({ length: 8 }, (_, i) => 11 + i * 7919);

function callsOf(fixture: (typeof fixtures)[number], pieces?: readonly Uint8Array[]): string[] {
  const outcome = runLoadedFixture(fixture, pieces);
  return record(outcome.chunks, outcome.error === null ? 'finish' : { fail: outcome.error.code ?? 'error' }, fixture.spec.ctx?.reasoningField ?? 'reasoning_content');
}

describe('every generic fixture through the machine', () => {
  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s: the ordering rules hold, at every seeded split alike', (_, fixture) => {
    const whole = callsOf(fixture);
    expectOrdered(whole);
    for (const seed of SEEDS) expect(callsOf(fixture, splitAtSeededOffsets(fixture.bytes, seed)), `seed ${seed}`).toEqual(whole);
  });

  it('the table itself keeps the ordering rules', () => {
    for (const row of table) if (row.end !== 'open') expectOrdered(row.calls);
  });
});
