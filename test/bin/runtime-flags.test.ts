// The V8 flags `keyhold` adds on Node 22+: both by default, none on Node 20,
// and never one the operator gave (in either spelling, or negated).
import { describe, expect, it } from 'vitest';
import { runtimeFlagsToAdd } from '../../bin/runtime-flags.js';

describe('runtimeFlagsToAdd', () => {
  it('adds both flags on Node 22 and 24, none on Node 20', () => {
    expect(runtimeFlagsToAdd([], 'v24.21.0')).toEqual(['--liftoff-only', '--max-semi-space-size=16']);
    expect(runtimeFlagsToAdd([], 'v22.12.0')).toEqual(['--liftoff-only', '--max-semi-space-size=16']);
    expect(runtimeFlagsToAdd([], 'v20.19.0')).toEqual([]);
  });

  it('leaves a flag the operator gave as given', () => {
    expect(runtimeFlagsToAdd(['--max-semi-space-size=64'], 'v24.21.0')).toEqual(['--liftoff-only']);
    expect(runtimeFlagsToAdd(['--max_semi_space_size=32'], 'v24.21.0')).toEqual(['--liftoff-only']);
    expect(runtimeFlagsToAdd(['--no-liftoff-only'], 'v24.21.0')).toEqual(['--max-semi-space-size=16']);
    expect(runtimeFlagsToAdd(['--liftoff-only', '--max-semi-space-size=16', '--enable-source-maps'], 'v24.21.0')).toEqual([]);
  });
});
