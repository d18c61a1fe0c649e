// The step table (src/login/steps.ts) covers every state of the login, each
// step taking form actions of its own (a POST names its step's action).
import { describe, expect, it } from 'vitest';
import { STEPS } from '../../src/login/steps.js';
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

  it('a done sign-in takes no form: it is ended, never shown', () => {
    expect(STEPS.done.actions).toEqual([]);
  });
});
