import { describe, expect, it } from 'vitest';
import type { CleanToolCallDelta } from '../../src/normalize/clean-chunk.js';
import { ToolCallAssembler, wholeToolNames, type ToolPiece } from '../../src/normalize/tool-call-assembler.js';

/** Feeds events (each a list of pieces, drained after each) and finishes; returns every piece sent per event. */
function assemble(toolNames: string[], events: ToolPiece[][]): { perEvent: CleanToolCallDelta[][]; atFinish: CleanToolCallDelta[] } {
  let calls = 0;
  const assembler = new ToolCallAssembler(wholeToolNames(toolNames), () => `gen_${++calls}`);
  const perEvent: CleanToolCallDelta[][] = [];
  for (const pieces of events) {
    const sent: CleanToolCallDelta[] = [];
    for (const piece of pieces) assembler.add(piece);
    assembler.drain({ onToolCall: (piece) => sent.push(piece) });
    perEvent.push(sent);
  }
  const atFinish: CleanToolCallDelta[] = [];
  assembler.finish({ onToolCall: (piece) => atFinish.push(piece) });
  return { perEvent, atFinish };
}

/** Joins a clean piece stream back into calls, checking the clean rules on the way. */
function joinCalls(pieces: CleanToolCallDelta[]): { id: string; name: string; arguments: string }[] {
  const calls: { id: string; name: string; arguments: string }[] = [];
  let open = -1;
  for (const piece of pieces) {
    const call = calls[piece.index];
    if (call === undefined) {
      // First piece: the next index, with id, type and the whole name.
      expect(piece.index).toBe(calls.length);
      expect(piece.id).toBeTruthy();
      expect(piece.type).toBe('function');
      expect(piece.function.name).toBeTruthy();
      calls.push({ id: piece.id ?? '', name: piece.function.name ?? '', arguments: piece.function.arguments });
      open = piece.index;
    } else {
      // Later pieces: index and arguments only, and only for the call in progress (no interleaving).
      expect(Object.keys(piece).sort()).toEqual(['function', 'index']);
      expect(Object.keys(piece.function)).toEqual(['arguments']);
      expect(piece.index).toBe(open);
      call.arguments += piece.function.arguments;
    }
  }
  return calls;
}

describe('ToolCallAssembler', () => {
  it('assembles the recorded example of docs/wire-protocol.md#tool-calls', () => {
    const { perEvent, atFinish } = assemble(
      ['lookup'],
      [
        [
          { index: 0, id: 'call-a', name: 'look', arguments: '{"value":' },
          { index: 1, id: 'call-b', name: 'lookup', arguments: '{"value":' },
        ],
        [
          { index: 1, arguments: '2}' },
          { index: 0, name: 'up', arguments: '1}' },
        ],
      ],
    );
    // `look` is not whole, and call-b must wait behind call-a: nothing goes out at first.
    expect(perEvent[0]).toEqual([]);
    expect(perEvent[1]).toEqual([
      { index: 0, id: 'call-a', type: 'function', function: { name: 'lookup', arguments: '{"value":1}' } },
      { index: 1, id: 'call-b', type: 'function', function: { name: 'lookup', arguments: '{"value":2}' } },
    ]);
    expect(atFinish).toEqual([]);
  });

  it('sends a call as soon as its name is whole, then its arguments as they come', () => {
    const { perEvent, atFinish } = assemble(
      ['get_weather'],
      [
        [{ index: 0, id: 'c1', name: 'get_' }],
        [{ index: 0, name: 'weather' }],
        [{ index: 0, arguments: '{"city":' }],
        [{ index: 0, arguments: '"Oslo"}' }],
      ],
    );
    expect(perEvent).toEqual([
      [],
      [{ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 0, function: { arguments: '{"city":' } }],
      [{ index: 0, function: { arguments: '"Oslo"}' } }],
    ]);
    expect(atFinish).toEqual([]);
  });

  it('holds a name that a longer declared name extends until the finish', () => {
    const { perEvent, atFinish } = assemble(
      ['read', 'read_file'],
      [[{ index: 0, id: 'c1', name: 'read', arguments: '{"path":"a"}' }], [{ index: 0, arguments: ' ' }]],
    );
    expect(perEvent).toEqual([[], []]);
    expect(atFinish).toEqual([
      { index: 0, id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"} ' } },
    ]);
  });

  it('sends the longer name as soon as it is complete', () => {
    const { perEvent } = assemble(['read', 'read_file'], [[{ index: 0, id: 'c1', name: 'read' }], [{ index: 0, name: '_file' }]]);
    expect(perEvent[1]).toEqual([{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '' } }]);
  });

  it('holds an undeclared name until the finish', () => {
    const { perEvent, atFinish } = assemble(['lookup'], [[{ index: 0, id: 'c1', name: 'unknown_tool', arguments: '{}' }]]);
    expect(perEvent).toEqual([[]]);
    expect(atFinish).toEqual([{ index: 0, id: 'c1', type: 'function', function: { name: 'unknown_tool', arguments: '{}' } }]);
  });

  it('holds a later call until the earlier one parses as JSON', () => {
    const { perEvent, atFinish } = assemble(
      ['a', 'b'],
      [
        [{ index: 0, id: 'x', name: 'a', arguments: '{"n":{"m":1}' }],
        [{ index: 1, id: 'y', name: 'b', arguments: '{}' }],
        [{ index: 0, arguments: '}' }],
      ],
    );
    expect(perEvent[0]).toEqual([{ index: 0, id: 'x', type: 'function', function: { name: 'a', arguments: '{"n":{"m":1}' } }]);
    // `{"n":{"m":1}` ends in `}` but does not parse: b waits.
    expect(perEvent[1]).toEqual([]);
    expect(perEvent[2]).toEqual([
      { index: 0, function: { arguments: '}' } },
      { index: 1, id: 'y', type: 'function', function: { name: 'b', arguments: '{}' } },
    ]);
    expect(atFinish).toEqual([]);
  });

  it('lets a held call go at the finish when the earlier one never completes', () => {
    const { perEvent, atFinish } = assemble(
      ['a', 'b'],
      [[{ index: 0, id: 'x', name: 'a', arguments: '{"cut' }], [{ index: 1, id: 'y', name: 'b', arguments: '{"k":' }], [{ index: 1, arguments: '2}' }]],
    );
    expect(perEvent.flat()).toEqual([{ index: 0, id: 'x', type: 'function', function: { name: 'a', arguments: '{"cut' } }]);
    expect(atFinish).toEqual([{ index: 1, id: 'y', type: 'function', function: { name: 'b', arguments: '{"k":2}' } }]);
  });

  it('never interleaves pieces of calls that arrive interleaved', () => {
    const events: ToolPiece[][] = [
      [{ index: 1, id: 'q', name: 'f' }],
      [{ index: 0, id: 'p', name: 'f' }],
      [{ index: 1, arguments: '{"b":' }, { index: 0, arguments: '{"a":' }],
      [{ index: 0, arguments: '1' }],
      [{ index: 1, arguments: '2}' }],
      [{ index: 0, arguments: '}' }],
    ];
    const { perEvent, atFinish } = assemble(['f'], events);
    const all = [...perEvent.flat(), ...atFinish];
    // In the server's index order, although index 1 came first (docs/contract.md#clean-dialect).
    expect(joinCalls(all)).toEqual([
      { id: 'p', name: 'f', arguments: '{"a":1}' },
      { id: 'q', name: 'f', arguments: '{"b":2}' },
    ]);
  });

  it('holds a call until every lower server index was seen, then sends in index order', () => {
    const { perEvent, atFinish } = assemble(
      ['f', 'g'],
      [
        [{ index: 1, id: 'second', name: 'g', arguments: '{"b":2}' }],
        [{ index: 0, id: 'first', name: 'f', arguments: '{"a":' }],
        [{ index: 0, arguments: '1}' }],
      ],
    );
    expect(perEvent[0]).toEqual([]);
    expect(perEvent[1]).toEqual([{ index: 0, id: 'first', type: 'function', function: { name: 'f', arguments: '{"a":' } }]);
    expect(perEvent[2]).toEqual([
      { index: 0, function: { arguments: '1}' } },
      { index: 1, id: 'second', type: 'function', function: { name: 'g', arguments: '{"b":2}' } },
    ]);
    expect(atFinish).toEqual([]);
  });

  it('sends a call whose lower indices never came at the finish', () => {
    const { perEvent, atFinish } = assemble(['f'], [[{ index: 2, id: 'c', name: 'f', arguments: '{}' }], [{ index: 1, id: 'b', name: 'f', arguments: '{}' }]]);
    expect(perEvent.flat()).toEqual([]);
    expect(joinCalls(atFinish).map((call) => call.id)).toEqual(['b', 'c']);
  });

  it('orders calls first seen in one event by the server index', () => {
    const { perEvent } = assemble(['f'], [[{ index: 1, id: 'second', name: 'f', arguments: '{}' }, { index: 0, id: 'first', name: 'f', arguments: '{}' }]]);
    expect(joinCalls(perEvent.flat()).map((call) => call.id)).toEqual(['first', 'second']);
  });

  it('makes an id where the server sent none or repeated one', () => {
    const { perEvent } = assemble(
      ['f'],
      [
        [{ index: 0, name: 'f', arguments: '{}' }],
        [{ index: 1, id: 'dup', name: 'f', arguments: '{}' }],
        [{ index: 2, id: 'dup', name: 'f', arguments: '{}' }],
        [{ index: 3, id: '', name: 'f', arguments: '{}' }],
      ],
    );
    expect(joinCalls(perEvent.flat()).map((call) => call.id)).toEqual(['gen_1', 'dup', 'gen_2', 'gen_3']);
  });

  it('keeps the first id when a server repeats it on every piece', () => {
    const { perEvent } = assemble(['f'], [[{ index: 0, id: 'a1', name: 'f', arguments: '{"x"' }], [{ index: 0, id: 'a1', arguments: ':1}' }]]);
    expect(perEvent.flat()).toEqual([
      { index: 0, id: 'a1', type: 'function', function: { name: 'f', arguments: '{"x"' } },
      { index: 0, function: { arguments: ':1}' } },
    ]);
  });

  it('takes the id from a later piece when the first had none', () => {
    const { atFinish } = assemble(['f', 'ff'], [[{ index: 0, name: 'f' }], [{ index: 0, id: 'late' }]]);
    expect(atFinish[0]?.id).toBe('late');
  });

  it('skips a call that never got a name, keeping indices contiguous', () => {
    const { atFinish } = assemble(['f'], [[{ index: 0, arguments: '{}' }, { index: 1, id: 'b', name: 'f', arguments: '{}' }]]);
    expect(atFinish).toEqual([{ index: 0, id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } }]);
  });

  describe('calls that reuse an index', () => {
    it('starts a new call for each new id at index 0 (Ollama: every call whole, each at index 0)', () => {
      const { perEvent, atFinish } = assemble(
        ['get_weather', 'get_time'],
        [
          [{ index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
          [{ index: 0, id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' }],
          [{ index: 0, id: 'call_c', name: 'get_weather', arguments: '{"city":"Rome"}' }],
        ],
      );
      expect(perEvent).toEqual([
        [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"zone":"CET"}' } }],
        [{ index: 2, id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
      ]);
      expect(atFinish).toEqual([]);
    });

    it('starts a new call for a new whole name at an index in use, even without ids', () => {
      const { perEvent, atFinish } = assemble(
        ['f', 'g'],
        [[{ index: 0, name: 'f', arguments: '{"x":1}' }], [{ index: 0, name: 'g', arguments: '{"y":' }], [{ index: 0, arguments: '2}' }]],
      );
      expect(joinCalls([...perEvent.flat(), ...atFinish])).toEqual([
        { id: 'gen_1', name: 'f', arguments: '{"x":1}' },
        { id: 'gen_2', name: 'g', arguments: '{"y":2}' },
      ]);
    });

    it('starts a new call for the same whole name once the arguments are complete, not before', () => {
      const { perEvent, atFinish } = assemble(
        ['f'],
        [
          [{ index: 0, name: 'f', arguments: '{"x":' }],
          // A server repeating the name on a later piece: the same call.
          [{ index: 0, name: 'f', arguments: '1}' }],
          [{ index: 0, name: 'f', arguments: '{"x":2}' }],
        ],
      );
      expect(joinCalls([...perEvent.flat(), ...atFinish])).toEqual([
        { id: 'gen_1', name: 'f', arguments: '{"x":1}' },
        { id: 'gen_2', name: 'f', arguments: '{"x":2}' },
      ]);
    });

    it('keeps building a name split across pieces (the name is not whole yet)', () => {
      const { atFinish, perEvent } = assemble(['look', 'lookup'], [[{ index: 0, id: 'a', name: 'look' }], [{ index: 0, name: 'up', arguments: '{}' }]]);
      expect(joinCalls([...perEvent.flat(), ...atFinish])).toEqual([{ id: 'a', name: 'lookup', arguments: '{}' }]);
    });

    it('lets the next call go when a new call takes the index of an incomplete one', () => {
      const { perEvent, atFinish } = assemble(
        ['f'],
        [[{ index: 0, id: 'a', name: 'f', arguments: '{"cut' }], [{ index: 0, id: 'b', name: 'f', arguments: '{}' }]],
      );
      expect(perEvent[1]).toEqual([{ index: 1, id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } }]);
      expect(atFinish).toEqual([]);
    });

    it('places calls of one index-less delta by their position (the reader gives each its place)', () => {
      const { perEvent } = assemble(
        ['f', 'g'],
        [[{ index: 0, id: 'a', name: 'f', arguments: '{"x":1}' }, { index: 1, id: 'b', name: 'g', arguments: '{"y":2}' }]],
      );
      expect(joinCalls(perEvent.flat())).toEqual([
        { id: 'a', name: 'f', arguments: '{"x":1}' },
        { id: 'b', name: 'g', arguments: '{"y":2}' },
      ]);
    });

    it('orders a reused index after the calls of that index already seen, before higher ones', () => {
      const { perEvent, atFinish } = assemble(
        ['f'],
        [
          [{ index: 0, id: 'a', name: 'f', arguments: '{"n":' }],
          [{ index: 1, id: 'c', name: 'f', arguments: '{}' }],
          [{ index: 0, id: 'b', name: 'f', arguments: '{}' }],
        ],
      );
      // `a` was superseded unfinished: the next in order is `b` (index 0), then `c` (index 1).
      expect(joinCalls([...perEvent.flat(), ...atFinish]).map((call) => call.id)).toEqual(['a', 'b', 'c']);
    });
  });

  it('counts the calls it sent, and survives an id maker that repeats itself', () => {
    const assembler = new ToolCallAssembler(wholeToolNames(['f']), () => 'gen');
    expect(assembler.sentCount).toBe(0);
    assembler.add({ index: 0, name: 'f', arguments: '{}' });
    assembler.add({ index: 5, name: 'f', arguments: '{}' });
    assembler.add({ index: 7, id: 'gen_2', name: 'f', arguments: '{}' });
    const ids: (string | undefined)[] = [];
    assembler.finish({ onToolCall: (piece) => ids.push(piece.id) });
    expect(assembler.sentCount).toBe(3);
    expect(ids).toEqual(['gen', 'gen_2', 'gen_3']);
  });
});

describe('wholeToolNames', () => {
  it('keeps the names no other declared name extends', () => {
    expect([...wholeToolNames(['read', 'read_file', 'write', 'lookup', ''])].sort()).toEqual(['lookup', 'read_file', 'write']);
    expect([...wholeToolNames(['a', 'a'])]).toEqual(['a']);
  });

  describe('arguments re-sent whole (docs/llamacpp-real.md)', () => {
    const streamed = [[{ index: 0, id: 'c1', name: 'get_time', arguments: '{"tz":' }], [{ index: 0, arguments: '"UTC"}' }]];

    it.each([
      ['as they were', '{"tz":"UTC"}'],
      ['with other spacing', ' { "tz": "UTC" }\n'],
    ])('drops a repeat of the whole arguments %s once they are complete', (_, repeat) => {
      const { perEvent, atFinish } = assemble(['get_time'], [...streamed, [{ index: 0, arguments: repeat }]]);
      expect(joinCalls([...perEvent.flat(), ...atFinish])).toEqual([{ id: 'c1', name: 'get_time', arguments: '{"tz":"UTC"}' }]);
    });

    it('keeps a piece that is not the same value, and anything before the arguments are complete', () => {
      const other = assemble(['get_time'], [...streamed, [{ index: 0, arguments: '{"tz":"CET"}' }]]);
      expect(joinCalls([...other.perEvent.flat(), ...other.atFinish])[0]?.arguments).toBe('{"tz":"UTC"}{"tz":"CET"}');
      const early = assemble(['get_time'], [[{ index: 0, id: 'c1', name: 'get_time', arguments: '{"a":{"a":1}' }], [{ index: 0, arguments: '{"a":1}' }]]);
      expect(joinCalls([...early.perEvent.flat(), ...early.atFinish])[0]?.arguments).toBe('{"a":{"a":1}{"a":1}');
    });
  });
});
