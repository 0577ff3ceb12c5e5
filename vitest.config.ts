import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Patience, not speed claims (speed lives in bench/): suites that pass in 10 s on an idle
    // machine took over 20 s on a loaded 2-core one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
