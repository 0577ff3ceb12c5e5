import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectCleanStream } from '../helpers/expect-clean-stream.js';
import { expectOutcome, loadFixtures, runLoadedFixture, splitAtSeededOffsets, type FixtureOutcome } from '../helpers/replay-fixture.js';

const fixtures = loadFixtures(fileURLToPath(new URL('../fixtures/generic/', import.meta.url)));
const SEEDS = Array.from({ length: 24 }, (_, i) => 1000 + i * 7919);

/** What must not depend on where reads end. */
function comparable(outcome: FixtureOutcome): unknown {
  return { chunks: outcome.chunks, error: outcome.error?.code ?? null, message: outcome.error?.message ?? null, done: outcome.done };
}

describe('generic golden fixtures', () => {
  it('has every fixture the contract asks for', () => {
    expect(fixtures.map((fixture) => fixture.name)).toEqual(
      expect.arrayContaining([
        'recorded-tool-calls',
        'carrier-reasoning-content',
        'carrier-reasoning',
        'carrier-both-keys',
        'think-tags-split',
        'think-open-template',
        'framing-crlf',
        'framing-multiline-data',
        'framing-comments-id-retry',
        'utf8-multibyte',
        'refusal',
        'usage-asked',
        'usage-unasked',
        'error-chunk-mid-stream',
        'stream-cut-without-done',
        'everything-at-once',
      ]),
    );
  });

  for (const fixture of fixtures) {
    describe(`${fixture.name}: ${fixture.spec.description}`, () => {
      it('gives exactly the expected clean output', () => {
        const outcome = runLoadedFixture(fixture);
        expectOutcome(outcome, fixture.spec);
        expectCleanStream(outcome.chunks, {
          done: outcome.done,
          reasoningField: fixture.spec.ctx?.reasoningField,
          model: fixture.spec.ctx?.model ?? 'client-model',
        });
      });

      it(`gives the same output split at ${SEEDS.length} seeded random offsets`, () => {
        const whole = comparable(runLoadedFixture(fixture));
        for (const seed of SEEDS) {
          const pieces = splitAtSeededOffsets(fixture.bytes, seed);
          expect(pieces.length, `seed ${seed}`).toBeGreaterThan(1);
          expect(comparable(runLoadedFixture(fixture, pieces)), `seed ${seed}`).toEqual(whole);
        }
      });

      it('gives the same output fed one byte at a time', () => {
        const bytes = Array.from(fixture.bytes, (_, i) => fixture.bytes.subarray(i, i + 1));
        expect(comparable(runLoadedFixture(fixture, bytes))).toEqual(comparable(runLoadedFixture(fixture)));
      });
    });
  }
});

describe('any split of any fixture (fast-check, fixed seed)', () => {
  it('gives the same clean output', () => {
    const wholes = fixtures.map((fixture) => comparable(runLoadedFixture(fixture)));
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.array(fc.nat(), { maxLength: 40 }), (which, cuts) => {
        const fixture = fixtures[which];
        if (fixture === undefined) return;
        const offsets = [...new Set(cuts.map((cut) => cut % (fixture.bytes.length + 1)))].sort((a, b) => a - b);
        const pieces: Uint8Array[] = [];
        let start = 0;
        for (const offset of offsets) {
          pieces.push(fixture.bytes.subarray(start, offset));
          start = offset;
        }
        pieces.push(fixture.bytes.subarray(start));
        expect(comparable(runLoadedFixture(fixture, pieces))).toEqual(wholes[which]);
      }),
      { seed: 424242, numRuns: 600 },
    );
  });
});

describe('splitAtSeededOffsets', () => {
  const bytes = fixtures.find((fixture) => fixture.name === 'everything-at-once')?.bytes ?? new Uint8Array();

  it('is reproducible from its seed and keeps every byte', () => {
    const a = splitAtSeededOffsets(bytes, 5);
    const b = splitAtSeededOffsets(bytes, 5);
    expect(a.map((piece) => piece.length)).toEqual(b.map((piece) => piece.length));
    expect(Buffer.concat(a).equals(Buffer.from(bytes))).toBe(true);
    expect(splitAtSeededOffsets(bytes, 6).map((piece) => piece.length)).not.toEqual(a.map((piece) => piece.length));
  });

  it('cuts inside a UTF-8 character, between CR and LF, and inside a JSON string', () => {
    let insideCharacter = 0;
    let insideCrLf = 0;
    for (const seed of SEEDS) {
      const pieces = splitAtSeededOffsets(bytes, seed);
      for (const piece of pieces.slice(1)) {
        const firstByte = piece[0] ?? 0;
        if ((firstByte & 0xc0) === 0x80) insideCharacter++;
        if (firstByte === 0x0a) insideCrLf++;
      }
    }
    expect(insideCharacter).toBeGreaterThanOrEqual(SEEDS.length);
    expect(insideCrLf).toBeGreaterThanOrEqual(SEEDS.length);
  });
});
