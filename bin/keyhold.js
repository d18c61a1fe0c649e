#!/usr/bin/env node
// The `keyhold` command: runs src/main.ts through tsx (no build step).
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
