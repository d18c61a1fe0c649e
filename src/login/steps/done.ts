// A done sign-in is never stored nor shown: the routes end it (a login with
// its amr, or the consent's decision) as soon as `next` returns it.
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const done: Step<StateOf<'done'>, never> = {
  actions: [],
  async render() {
    return { again: true };
  },
  async submit() {
    return { outcome: { kind: 'refused' } };
  },
};
