// Self-registration at an app's login: a person creates their own human user
// in the org whose login policy allows it (allowRegister). The same rules as
// AddHumanUser (names, address, password policy; the username is the
// address), plus the org's: the address's domain among the allowed ones, read
// unambiguously (domain/identity/registration.ts). Every registration from an
// address counts in that address's budget, taken or not (registration spam).
// A taken username is answered USERNAME_TAKEN, as ZITADEL answers it: the form
// tells whether an address has an account here (docs/decisions.md), bounded by
// the same budget.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { addressBucketKey } from '../../domain/identity/address-key.js';
import { checkDisplayName, checkUsername } from '../../domain/identity/identifiers.js';
import { passwordRule } from '../../domain/identity/passwords.js';
import { registrationAddress } from '../../domain/identity/registration.js';
import { emailRule, requiredText } from '../../domain/identity/text-rules.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { spend } from '../login/guesses.js';
import { runCommand } from '../run.js';

export interface RegisterInput {
  orgId: string;
  givenName: string;
  familyName: string;
  email: string;
  password: string;
  /** The org's registration rules (its login policy, read by the caller). */
  rules: { domains: readonly string[]; verification: boolean };
}

export async function registerHumanUser(ports: Ports, input: RegisterInput, client: { address: string }): Promise<{ userId: string; verificationRequired: boolean }> {
  const email = input.email.trim();
  const violations = [
    ...requiredText('givenName', input.givenName, 200),
    ...requiredText('familyName', input.familyName, 200),
    ...emailRule('email', email),
    ...passwordRule('password', input.password, checkUsername(email, 200).value),
  ];
  if (violations.length) throw invalidRequest(violations);
  const address = registrationAddress(email, input.rules.domains);
  if (!address.ok) {
    if (address.why === 'ambiguous') throw new KeyholdError('REGISTRATION_ADDRESS_AMBIGUOUS', {});
    throw new KeyholdError('REGISTRATION_DOMAIN_NOT_ALLOWED', { domains: input.rules.domains.join(', ') });
  }
  const held = await ports.invite().budgets.reserve([{ kind: 'register.address', key: addressBucketKey(client.address) }]);
  if (!held.ok) throw new KeyholdError('REGISTRATION_SLOW_DOWN', { seconds: String(held.waitSeconds) });
  const { result } = await spend(held, async (counts) => {
    // Counted before the write: a registration that fails on a taken name counts as one that succeeds.
    counts('failure');
    const passwordHash = await ports.secrets.passwordHash(input.password);
    const userId = ports.ids.newId();
    const name = (text: string) => checkDisplayName(text, 200).value;
    await runCommand(
      ports.events,
      { type: 'user', id: userId },
      userDecider(userId),
      {
        kind: 'addHuman',
        orgId: input.orgId,
        username: checkUsername(email, 200).value,
        givenName: name(input.givenName),
        familyName: name(input.familyName),
        displayName: '',
        email,
        actor: userId,
        password: { passwordHash, changeRequired: false },
        registered: { verificationRequired: input.rules.verification },
      },
      { creates: true },
    );
    return { userId, verificationRequired: input.rules.verification };
  });
  return result;
}
