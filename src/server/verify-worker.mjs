// Entry of a verification thread. A worker thread does not inherit the main
// thread's TypeScript loader (tsx, or vitest's transform), so it registers
// tsx itself and then loads the thread's body.
import { register } from 'tsx/esm/api';

register();
await import('./verify-worker.ts');
