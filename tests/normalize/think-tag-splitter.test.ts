import { describe, expect, it } from 'vitest';
import { ThinkTagSplitter, type ThinkTagSink } from '../../src/normalize/think-tag-splitter.js';

type Segment = ['answer' | 'reasoning', string];

/** Runs pieces through a splitter; adjacent text of one kind is joined, as the normalizer does. */
function split(mode: 'auto' | 'open', pieces: string[]): Segment[] {
  const segments: Segment[] = [];
  const add = (kind: Segment[0], text: string): void => {
    expect(text).not.toBe('');
    const last = segments[segments.length - 1];
    if (last !== undefined && last[0] === kind) last[1] += text;
    else segments.push([kind, text]);
  };
  const sink: ThinkTagSink = {
    onAnswerText: (text) => add('answer', text),
    onReasoningText: (text) => add('reasoning', text),
  };
  const splitter = new ThinkTagSplitter(mode);
  for (const piece of pieces) splitter.push(piece, sink);
  splitter.end(sink);
  return segments;
}

/** Every way to cut `text` into up to three pieces. */
function everyCut(text: string): string[][] {
  const ways: string[][] = [];
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) ways.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return ways;
}

describe('ThinkTagSplitter (auto)', () => {
  it('splits the example of the reference: `a<thi` + `nk>b</think>c`', () => {
    expect(split('auto', ['a<thi', 'nk>b</think>c'])).toEqual([
      ['answer', 'a'],
      ['reasoning', 'b'],
      ['answer', 'c'],
    ]);
  });

  it('gives the same split wherever the pieces are cut', () => {
    const text = 'a<think>b</think>c';
    for (const pieces of everyCut(text)) {
      expect(split('auto', pieces), JSON.stringify(pieces)).toEqual([
        ['answer', 'a'],
        ['reasoning', 'b'],
        ['answer', 'c'],
      ]);
    }
  });

  it('keeps an unfinished marker at the very end as text', () => {
    expect(split('auto', ['done<thi'])).toEqual([['answer', 'done<thi']]);
    expect(split('auto', ['done', '<', 'thi'])).toEqual([['answer', 'done<thi']]);
    expect(split('auto', ['<think>why</thi'])).toEqual([['reasoning', 'why</thi']]);
  });

  it('passes text that only looks like a marker', () => {
    expect(split('auto', ['a < b and <thing> and <', 'br> <thinking>'])).toEqual([
      ['answer', 'a < b and <thing> and <br> <thinking>'],
    ]);
    expect(split('auto', ['<<', 'think>x</think>'])).toEqual([
      ['answer', '<'],
      ['reasoning', 'x'],
    ]);
  });

  it('takes a closing marker without an opening one as answer text', () => {
    expect(split('auto', ['plan</think>\n\nanswer'])).toEqual([['answer', 'plan</think>\n\nanswer']]);
  });

  it('keeps what follows the closing marker, "\\n\\n" included, as answer', () => {
    expect(split('auto', ['<think>\nhmm\n</think>', '\n\n', 'Hi'])).toEqual([
      ['reasoning', '\nhmm\n'],
      ['answer', '\n\nHi'],
    ]);
  });

  it('reads several think blocks, and an opening marker inside reasoning as reasoning', () => {
    expect(split('auto', ['<think>a<think>b</think>c<think>d</think>e'])).toEqual([
      ['reasoning', 'a<think>b'],
      ['answer', 'c'],
      ['reasoning', 'd'],
      ['answer', 'e'],
    ]);
  });

  it('gives nothing for markers alone', () => {
    expect(split('auto', ['<think>', '</think>'])).toEqual([]);
    expect(split('auto', ['<', 't', 'h', 'i', 'n', 'k', '>'])).toEqual([]);
  });

  it('keeps multi-byte text and emoji around markers intact', () => {
    expect(split('auto', ['日本<thi', 'nk>考え🦀</th', 'ink>答え'])).toEqual([
      ['answer', '日本'],
      ['reasoning', '考え🦀'],
      ['answer', '答え'],
    ]);
  });
});

describe('ThinkTagSplitter (open)', () => {
  it('starts inside reasoning until the closing marker', () => {
    expect(
      split('open', [
        'The user wants me to count. This is straightforward.\n</th',
        'ink>\n\nOne, two, three, four, five.',
      ]),
    ).toEqual([
      ['reasoning', 'The user wants me to count. This is straightforward.\n'],
      ['answer', '\n\nOne, two, three, four, five.'],
    ]);
  });

  it('gives reasoning only when the closing marker never comes', () => {
    expect(split('open', ['still ', 'thinking</thi'])).toEqual([['reasoning', 'still thinking</thi']]);
  });

  it('reads a later opening marker as in auto mode', () => {
    expect(split('open', ['a</think>b<think>c</think>d'])).toEqual([
      ['reasoning', 'a'],
      ['answer', 'b'],
      ['reasoning', 'c'],
      ['answer', 'd'],
    ]);
  });

  it('gives the same split wherever the pieces are cut', () => {
    for (const pieces of everyCut('r1</think>x<think>r2</think>')) {
      expect(split('open', pieces), JSON.stringify(pieces)).toEqual([
        ['reasoning', 'r1'],
        ['answer', 'x'],
        ['reasoning', 'r2'],
      ]);
    }
  });
});
