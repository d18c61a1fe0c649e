// Types for scripts/release-check.mjs (imported by test/server/package.test.ts).
export declare const REQUIRED_FILES: readonly string[];
export declare const FORBIDDEN_PREFIXES: readonly string[];
export declare function packageProblems(paths: readonly string[]): string[];
