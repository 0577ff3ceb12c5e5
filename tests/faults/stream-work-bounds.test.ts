/**
 * Work that grows with what a hostile upstream sends, and not with its square. A server that
 * streams a call's arguments as thousands of `}` inside a long string made svir parse the whole
 * text again at every piece. The JSON end scanner looks at each character once and parses once:
 * checked here by the characters handed to JSON.parse (deterministic, unlike a clock), and for
 * agreement with JSON.parse itself under fast-check (seeded).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJsonEndScanner } from '../../src/normalize/json-end-scanner.js';
import { ToolCallAssembler } from '../../src/normalize/tool-call-assembler.js';
import { cutAnywhere } from '../helpers/cut-at.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What the old judgement said, on the whole text: one JSON object or array. */
function wholeObjectOrArray(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** Counts the characters handed to JSON.parse from now on (it still parses). */
function countParsedCharacters(): { characters: () => number; calls: () => number } {
  const real = JSON.parse.bind(JSON);
  let characters = 0;
  const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    characters += text.length;
    return real(text, reviver);
  });
  return { characters: () => characters, calls: () => spy.mock.calls.length };
}

describe('createJsonEndScanner', () => {
  it('agrees with JSON.parse on whole texts, valid or broken, however they are split', () => {
    const texts = fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.json({ maxDepth: 3 }).map((json) => `  ${json}\n`),
      fc.tuple(fc.json({ maxDepth: 3 }), fc.nat()).map(([json, n]) => json.slice(0, n % (json.length + 1))),
      fc.tuple(fc.json({ maxDepth: 3 }), fc.constantFrom('}', ']', '{}', ' x', '"', '\\', ',')).map(([json, tail]) => json + tail),
      fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'a', '1', ' ') }),
    );
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const scanner = createJsonEndScanner();
        let sofar = '';
        let state = scanner.advance(sofar);
        for (const piece of cutAnywhere(text, cuts)) {
          sofar += piece;
          state = scanner.advance(sofar);
        }
        expect(state === 'complete', JSON.stringify(text)).toBe(wholeObjectOrArray(text));
      }),
      { seed: 0x15c4, numRuns: 3_000 },
    );
  });

  it('hands JSON.parse each text once, whatever the pieces: `}` streamed inside a long string', () => {
    const parsed = countParsedCharacters();
    const scanner = createJsonEndScanner();
    let text = '{"a":"';
    for (let i = 0; i < 20_000; i++) {
      text += '}';
      expect(scanner.advance(text)).toBe('open');
    }
    text += '"}';
    expect(scanner.advance(text)).toBe('complete');
    expect(parsed.calls()).toBe(1);
    expect(parsed.characters()).toBeLessThanOrEqual(text.length);
  });
});

describe('ToolCallAssembler', () => {
  it('judges arguments streamed as 20,000 pieces with linear parsing', () => {
    const parsed = countParsedCharacters();
    let ids = 0;
    const assembler = new ToolCallAssembler(new Set(['f']), () => `call_${ids++}`);
    const out: string[] = [];
    const sink = { onToolCall: (piece: { function: { arguments: string } }) => void out.push(piece.function.arguments) };
    assembler.add({ index: 0, id: 'a', name: 'f', arguments: '{"text":"' });
    assembler.drain(sink);
    for (let i = 0; i < 20_000; i++) {
      assembler.add({ index: 0, arguments: '}' });
      assembler.drain(sink);
    }
    assembler.add({ index: 0, arguments: '"}' });
    assembler.add({ index: 1, id: 'b', name: 'f', arguments: '{}' });
    assembler.drain(sink);
    const total = 9 + 20_000 + 2;
    // The first call is complete (the second went out after it), having been parsed about once.
    expect(out.join('')).toBe(`{"text":"${'}'.repeat(20_000)}"}{}`);
    expect(parsed.characters()).toBeLessThanOrEqual(2 * total);
  });
});
