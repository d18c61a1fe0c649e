import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Brings dist/server up to date for the tests that run the build (npm-start, cli).
    globalSetup: ['./test/support/build-server.ts'],
    testTimeout: 60_000, // a first PGlite start (initdb) or buf generate passed 30 s on a 2-core machine under load
    hookTimeout: 60_000,
    // Files start their own servers and databases; two cores → modest parallelism.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
