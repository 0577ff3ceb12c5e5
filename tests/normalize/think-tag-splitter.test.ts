import { describe, expect, it } from 'vitest';
import { LLAMACPP_REASONING_MARKERS } from '../../src/adapters/stream/llamacpp-reasoning-markers.js';
import { ThinkTagSplitter, type ReasoningMarkers, type ThinkTagSink } from '../../src/normalize/think-tag-splitter.js';

type Segment = ['answer' | 'reasoning', string];

/** Runs pieces through a splitter; adjacent text of one kind is joined, as the normalizer does. */
function split(mode: 'auto' | 'open', pieces: string[], markers?: readonly [ReasoningMarkers, ...ReasoningMarkers[]]): Segment[] {
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
    onReasoningEnd: () => undefined,
  };
  const splitter = new ThinkTagSplitter(mode, markers);
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
  it('splits a think block that opens the answer, its markers cut anywhere', () => {
    const text = '<think>b</think>c';
    for (const pieces of everyCut(text)) {
      expect(split('auto', pieces), JSON.stringify(pieces)).toEqual([
        ['reasoning', 'b'],
        ['answer', 'c'],
      ]);
    }
  });

  it('counts a think block after leading whitespace, which stays answer text', () => {
    for (const pieces of everyCut(' \n<think>r</think>a')) {
      expect(split('auto', pieces), JSON.stringify(pieces)).toEqual([
        ['answer', ' \n'],
        ['reasoning', 'r'],
        ['answer', 'a'],
      ]);
    }
  });

  it('reads a <think> in the middle of the answer as text (the reference example `a<thi` + `nk>b</think>c`)', () => {
    expect(split('auto', ['a<thi', 'nk>b</think>c'])).toEqual([['answer', 'a<think>b</think>c']]);
    for (const pieces of everyCut('a<think>b</think>c')) {
      expect(split('auto', pieces), JSON.stringify(pieces)).toEqual([['answer', 'a<think>b</think>c']]);
    }
  });

  it('keeps a sentence that explains think tags whole', () => {
    const sentence = 'Models wrap their reasoning in <think> and </think> tags, like <think>this</think>.';
    expect(split('auto', [sentence])).toEqual([['answer', sentence]]);
  });

  it('reads only the first block: after </think> everything is answer, a second block too', () => {
    expect(split('auto', ['<think>a<think>b</think>c<think>d</think>e'])).toEqual([
      ['reasoning', 'a<think>b'],
      ['answer', 'c<think>d</think>e'],
    ]);
  });

  it('tells the caller once the answer began', () => {
    const splitter = new ThinkTagSplitter('auto');
    const sink: ThinkTagSink = { onAnswerText: () => undefined, onReasoningText: () => undefined, onReasoningEnd: () => undefined };
    splitter.push('  ', sink);
    expect(splitter.answering).toBe(false);
    splitter.push('<thi', sink);
    expect(splitter.answering).toBe(false);
    splitter.push('nk>r</think>', sink);
    expect(splitter.answering).toBe(true);
    const plain = new ThinkTagSplitter('auto');
    plain.push('Hello', sink);
    expect(plain.answering).toBe(true);
  });

  it('keeps an unfinished marker at the very end as text', () => {
    expect(split('auto', ['<thi'])).toEqual([['answer', '<thi']]);
    expect(split('auto', ['\n', '<', 'thi'])).toEqual([['answer', '\n<thi']]);
    expect(split('auto', ['<think>why</thi'])).toEqual([['reasoning', 'why</thi']]);
  });

  it('passes text that only looks like a marker', () => {
    expect(split('auto', ['<thinking> and <', 'br>'])).toEqual([['answer', '<thinking> and <br>']]);
    expect(split('auto', ['<<', 'think>x</think>'])).toEqual([['answer', '<<think>x</think>']]);
    expect(split('auto', ['<th', 'ought>'])).toEqual([['answer', '<thought>']]);
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

  it('gives nothing for markers alone', () => {
    expect(split('auto', ['<think>', '</think>'])).toEqual([]);
    expect(split('auto', ['<', 't', 'h', 'i', 'n', 'k', '>'])).toEqual([]);
  });

  it('keeps multi-byte text and emoji around markers intact', () => {
    expect(split('auto', ['<thi', 'nk>考え🦀</th', 'ink>答え<think>'])).toEqual([
      ['reasoning', '考え🦀'],
      ['answer', '答え<think>'],
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

  it('takes a <think> the model writes itself at the start as a marker, not text', () => {
    for (const pieces of everyCut('<think>\nr</think>a')) {
      expect(split('open', pieces), JSON.stringify(pieces)).toEqual([
        ['reasoning', '\nr'],
        ['answer', 'a'],
      ]);
    }
    expect(split('open', ['\n', '<think>', 'r</think>a'])).toEqual([
      ['reasoning', '\nr'],
      ['answer', 'a'],
    ]);
  });

  it('reads a <think> later in the reasoning as reasoning, and one after </think> as answer text', () => {
    expect(split('open', ['a<think>b</think>c<think>d</think>e'])).toEqual([
      ['reasoning', 'a<think>b'],
      ['answer', 'c<think>d</think>e'],
    ]);
  });

  it('gives the same split wherever the pieces are cut', () => {
    for (const pieces of everyCut('r1</think>x<think>r2</think>')) {
      expect(split('open', pieces), JSON.stringify(pieces)).toEqual([
        ['reasoning', 'r1'],
        ['answer', 'x<think>r2</think>'],
      ]);
    }
  });
});

describe('ThinkTagSplitter with more marker pairs (llama.cpp --reasoning-format none)', () => {
  it.each([
    ['<think>', '</think>'],
    ['[THINK]', '[/THINK]'],
    ['<|channel|>analysis<|message|>', '<|end|>'],
  ])('splits a block opened by %s and closed by %s, the markers cut anywhere', (open, close) => {
    for (const pieces of everyCut(`${open}r${close}a`)) {
      expect(split('auto', pieces, LLAMACPP_REASONING_MARKERS), JSON.stringify(pieces)).toEqual([
        ['reasoning', 'r'],
        ['answer', 'a'],
      ]);
    }
  });

  it('closes a block only with its own pair\'s marker: another family\'s is reasoning text', () => {
    expect(split('auto', ['[THINK]a</think>b<|end|>c[/THINK]d'], LLAMACPP_REASONING_MARKERS)).toEqual([
      ['reasoning', 'a</think>b<|end|>c'],
      ['answer', 'd'],
    ]);
  });

  it('reads the markers after the answer began, or a marker nothing opened, as answer text', () => {
    for (const text of ['a[THINK]b[/THINK]c', '[/THINK]a', '<|end|>a', 'x<|channel|>analysis<|message|>y']) {
      for (const pieces of everyCut(text)) {
        expect(split('auto', pieces, LLAMACPP_REASONING_MARKERS), JSON.stringify(pieces)).toEqual([['answer', text]]);
      }
    }
  });

  it('keeps the text after a closing marker, as it came (gpt-oss: the answer at once; GLM: a newline first)', () => {
    expect(split('auto', ['<|channel|>analysis', '<|message|>', 'Okay', '<|end|>', 'Hello'], LLAMACPP_REASONING_MARKERS)).toEqual([
      ['reasoning', 'Okay'],
      ['answer', 'Hello'],
    ]);
    expect(split('auto', ['<think>', 'Okay', '</think>', '\n', 'Hello'], LLAMACPP_REASONING_MARKERS)).toEqual([
      ['reasoning', 'Okay'],
      ['answer', '\nHello'],
    ]);
  });

  it('in open mode reads only the first pair (the template opened <think>): a leading [THINK] is reasoning text', () => {
    expect(split('open', ['[THINK]r</think>a'], LLAMACPP_REASONING_MARKERS)).toEqual([
      ['reasoning', '[THINK]r'],
      ['answer', 'a'],
    ]);
  });

  it('gives a marker begun and never finished back as text of its kind at the end', () => {
    expect(split('auto', ['[THI'], LLAMACPP_REASONING_MARKERS)).toEqual([['answer', '[THI']]);
    expect(split('auto', ['[THINK]r[/TH'], LLAMACPP_REASONING_MARKERS)).toEqual([['reasoning', 'r[/TH']]);
  });
});
