import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files start their own servers and databases; two cores → modest parallelism.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
