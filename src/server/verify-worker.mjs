// Entry of a verification thread. A worker thread does not inherit the main
// thread's TypeScript loader (tsx, or vitest's transform), so it registers
// tsx itself and then loads the thread's body. The build (dist/server,
// scripts/build-server.mjs) puts the compiled body under this name instead.
import { register } from 'tsx/esm/api';

register();
await import('./verify-worker.ts');
