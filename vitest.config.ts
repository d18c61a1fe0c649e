import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Brings dist/server up to date for the tests that run the build (npm-start, cli).
    globalSetup: ['./test/support/build-server.ts'],
    testTimeout: 60_000, // a first PGlite start (initdb) or buf generate passed 30 s on a 2-core machine under load
    hookTimeout: 60_000,
    // Files start their own servers, databases and browsers and spend much of their time waiting
    // on them: three files at once on two cores kept both busy. Measured on this 2-core machine,
    // whole suite (2,009 tests), quiet: two workers 931 s, three 700 s.
    maxWorkers: 3,
    fileParallelism: true,
    // Each worker keeps its loaded modules from one file to the next instead of starting a fresh
    // process per file. Every file still starts its own servers, databases and browsers; what is
    // shared is module code, as in one Keyhold process. Measured on this 2-core machine, whole
    // suite: isolated 395 s (92 s of it importing: ~2 s per server file, 3.8× that on a loaded
    // machine, where one CI leg took 857 s), shared 306 s and 312 s (files in a shuffled order,
    // --sequence.shuffle.files: no file depends on another's leftovers).
    isolate: false,
  },
});
