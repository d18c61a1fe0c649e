// The V8 flags `keyhold` starts with on Node 22 and later (./keyhold.js says why).
// A flag the operator already gave (any value) is left as given.

/** Each flag Keyhold adds, with the name that says the operator set it already. */
const RUNTIME_FLAGS = [
  // Baseline-compiled WebAssembly only: the embedded database's optimised code
  // cost ~500 MiB at its peak; its warm queries run ~15-20 % slower.
  { name: '--liftoff-only', flag: '--liftoff-only' },
  // Node 20's young generation (16 MiB semi-spaces) instead of one sized from the heap limit.
  { name: '--max-semi-space-size', flag: '--max-semi-space-size=16' },
];

/** The flags to add to a process started with `execArgv` on Node `version` ("v24.1.0"). */
export function runtimeFlagsToAdd(execArgv, version) {
  const major = Number(/^v(\d+)\./.exec(version)?.[1] ?? 0);
  if (major < 22) return [];
  // V8 reads --max_semi_space_size as --max-semi-space-size, and --no-liftoff-only sets --liftoff-only too.
  const names = new Set(execArgv.map((a) => `--${a.replace(/^--(no-)?/, '').split('=')[0].replace(/_/g, '-')}`));
  return RUNTIME_FLAGS.filter((f) => !names.has(f.name)).map((f) => f.flag);
}
