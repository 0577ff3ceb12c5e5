/**
 * Every recorded stream of the reference, per backend type (`tests/fixtures/<type>/`), through
 * that type's adapter and the normalizer: whole, and cut at seeded random offsets (inside UTF-8
 * characters, JSON strings, `data:` prefixes and CRLF pairs), with the same clean output.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import type { BackendType } from '../../src/config/schema.js';
import { expectOutcome, loadFixtures, runLoadedFixture, splitAtSeededOffsets } from '../helpers/replay-fixture.js';

const FIXTURE_DIRS: readonly BackendType[] = ['azure', 'lmstudio', 'llamacpp', 'vllm', 'mlx-lm', 'mlx-vlm', 'ollama', 'openai'];
const SEEDS = 30;

for (const type of FIXTURE_DIRS) {
  const adapter = getAdapter(type);
  const fixtures = loadFixtures(join(import.meta.dirname, '..', 'fixtures', type));

  describe(`${type} fixtures`, () => {
    it('has recorded streams', () => {
      expect(fixtures.length).toBeGreaterThan(0);
    });

    for (const fixture of fixtures) {
      it(`${fixture.name}: ${fixture.spec.description}`, () => {
        expectOutcome(runLoadedFixture(fixture, [fixture.bytes], { readEvent: adapter.readEvent }), fixture.spec);
      });

      it(`${fixture.name}: same output at ${SEEDS} seeded split points`, () => {
        for (let seed = 1; seed <= SEEDS; seed++) {
          const pieces = splitAtSeededOffsets(fixture.bytes, seed);
          expectOutcome(runLoadedFixture(fixture, pieces, { readEvent: adapter.readEvent }), fixture.spec);
        }
      });
    }
  });
}
