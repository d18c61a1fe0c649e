// The user has a second factor this login cannot take: keys that work only at
// another address (or under an RP id no longer configured), or forceMfa and
// a login where no key can be registered. The login ends here, saying where
// the keys work; it never finishes with the password alone.
import { elsewhereBody } from '../pages/key.js';
import { t } from '../pages/layout.js';
import { whereKeysWork } from '../relying-parties.js';
import type { StateOf } from '../state.js';
import { decideSecondFactor } from './second-factor.js';
import type { Step } from './step.js';

export const keyElsewhere: Step<StateOf<'keyElsewhere'>, 'key'> = {
  actions: ['key'],
  async render(ctx, state) {
    const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    if (decided.secondFactor !== 'refused') return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    const body = elsewhereBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, whereKeysWork(decided.keys, ctx.ports.webauthn()));
    return { page: { title: t(ctx.lang, 'keyElsewhereTitle'), body, status: 403 } };
  },
  // Nothing to answer here: the page again.
  async submit() {
    return { outcome: { kind: 'refused' } };
  },
};
