// Types of bin/runtime-flags.js (plain JavaScript: bin/ runs without a build).
export function runtimeFlagsToAdd(execArgv: readonly string[], version: string): string[];
