// The step table (src/login/steps.ts) covers every state of the login, each
// step taking form actions of its own (a POST names its step's action).
import { describe, expect, it } from 'vitest';
import { STEPS } from '../../src/login/steps.js';
import type { StepTable } from '../../src/login/steps/step.js';
import { LOGIN_STEPS } from '../../src/login/state.js';
import type { StepContext } from '../../src/login/steps/step.js';

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

  it('without mail configured, "Forgot password?" says to ask an administrator and sends nothing', async () => {
    const asked: string[] = [];
    const ctx = {
      lang: 'en',
      interaction: { uid: 'uid-1' },
      hidden: '',
      field: () => 'ada',
      ports: { mailConfigured: () => false, requestPasswordReset: (name: string) => void asked.push(name) },
    } as unknown as StepContext;
    const shown = await STEPS.forgotPassword.render(ctx, { step: 'forgotPassword', loginName: 'ada' });
    expect('page' in shown && shown.page.body).toContain('This Keyhold cannot send mail. Ask your administrator');
    expect('page' in shown && shown.page.body).not.toContain('/send"');
    expect((await STEPS.forgotPassword.submit(ctx, { step: 'forgotPassword', loginName: 'ada' }, 'send')).outcome).toEqual({ kind: 'refused' });
    expect(asked).toEqual([]);
  });
});
