import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: svir against a real llama.cpp `llama-server` (tests/real/*.real.ts), which
 * scripts/real-llama/setup.sh builds and caches first. Kept out of `npm test` (its include is
 * `tests/**\/*.test.ts`). One file at a time: each starts its own servers, and a real server
 * is slow on a loaded machine.
 */
export default defineConfig({
  test: {
    include: ['tests/real/**/*.real.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
