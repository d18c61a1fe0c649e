// The step table (src/login/steps.ts) covers every state of the login, each
// step taking form actions of its own (a POST names its step's action).
import { describe, expect, it } from 'vitest';
import { STEPS } from '../../src/login/steps.js';
import type { StepTable } from '../../src/login/steps/step.js';
import { LOGIN_STEPS } from '../../src/login/state.js';

describe('the step table', () => {
  it('has a step for every state, and nothing else', () => {
    expect(Object.keys(STEPS).sort()).toEqual([...LOGIN_STEPS].sort());
    for (const step of LOGIN_STEPS) {
      expect(typeof STEPS[step].render).toBe('function');
      expect(typeof STEPS[step].submit).toBe('function');
    }
  });

  it('restart is every step’s (the routes take it), no step claims it', () => {
    for (const step of LOGIN_STEPS) expect(STEPS[step].actions).not.toContain('restart');
  });

  it('a table without a step for some state does not compile (tsc checks this file)', () => {
    const { recoveryCode: _left, ...rest } = STEPS;
    // @ts-expect-error the recoveryCode state has no step
    const partial: StepTable = rest;
    // A step that takes another state's state does not fit either.
    // @ts-expect-error the password step does not take the identify state
    const swapped: StepTable = { ...STEPS, identify: STEPS.password };
    expect(Object.keys(partial)).not.toContain('recoveryCode');
    expect(swapped.identify).toBe(STEPS.password);
  });

  it('a done sign-in takes no form: it is ended, never shown', () => {
    expect(STEPS.done.actions).toEqual([]);
  });
});
