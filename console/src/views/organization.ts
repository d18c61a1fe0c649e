// #/organization: the organization the console acts in — its name and state
// (./org-settings.ts), its login policy
// (forceMfa, self-registration), its lockout policy (max password attempts), its members and
// its identity providers.
// A policy still the instance's default is saved as the org's own
// (AddCustom…), afterwards changed (UpdateCustom…), as ZITADEL's console does.
import { PasswordlessType } from '../../../gen/keyhold/management/v1/management_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { permissions } from '../my-roles.js';
import type { View } from '../view.js';
import { identityProvidersSection } from './identity-providers.js';
import { membersSection } from './members.js';
import { orgSettingsSection } from './org-settings.js';
import { checkField } from './project-admin.js';

async function loginPolicyForm(mayWrite: boolean): Promise<HTMLElement> {
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'login-policy-title', 'data-testid': 'login-policy' }, h('h2', { id: 'login-policy-title' }, L.loginPolicy));
  let answer;
  try {
    answer = await management.getLoginPolicy({});
  } catch (e) {
    form.append(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
    return form;
  }
  let isDefault = answer.isDefault || (answer.policy?.isDefault ?? false);
  const note = h('p', { class: 'hint', 'data-testid': 'login-policy-source' }, isDefault ? L.policyIsDefault : L.policyIsOwn);
  // The page edits forceMfa only; the first factors are sent back as read.
  const firstFactors = { passwordlessType: answer.policy?.passwordlessType ?? PasswordlessType.ALLOWED, allowUsernamePassword: answer.policy?.allowUsernamePassword ?? true };
  const forceMfa = checkField(L.forceMfa, 'forceMfa', answer.policy?.forceMfa ?? false, L.forceMfaHint);
  // Self-registration: sent with every save (an update that leaves it out switches it off).
  const allowRegister = checkField(L.allowRegister, 'allowRegister', answer.policy?.allowRegister ?? false, L.allowRegisterHint);
  const domains = textField({ label: L.allowedDomains, name: 'allowedDomains', hint: L.allowedDomainsHint, value: (answer.policy?.allowedDomains ?? []).join(' ') });
  const verification = checkField(L.registerVerification, 'registerVerificationRequired', answer.policy?.registerVerificationRequired ?? true, L.registerVerificationHint);
  const save = h('button', { type: 'submit' }, L.saveLoginPolicy);
  form.append(note, forceMfa.wrapper, allowRegister.wrapper, domains.wrapper, verification.wrapper);
  if (mayWrite) form.append(h('div', { class: 'actions' }, save));
  for (const field of [forceMfa, allowRegister, domains, verification]) field.input.disabled = !mayWrite;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, L.saving, async () => {
      try {
        // Both first factors as they are: an update must name them (an absent one is refused).
        const policy = {
          forceMfa: forceMfa.input.checked,
          passwordlessType: firstFactors.passwordlessType,
          allowUsernamePassword: firstFactors.allowUsernamePassword,
          allowRegister: allowRegister.input.checked,
          allowedDomains: domains.input.value.split(/[\s,]+/).filter(Boolean),
          registerVerificationRequired: verification.input.checked,
        };
        if (isDefault) await management.addCustomLoginPolicy(policy);
        else await management.updateCustomLoginPolicy(policy);
        isDefault = false;
        note.textContent = L.policyIsOwn;
        clearProblems(form);
        announce(L.loginPolicySaved);
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}

async function lockoutPolicyForm(mayWrite: boolean): Promise<HTMLElement> {
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'lockout-policy-title', 'data-testid': 'lockout-policy' }, h('h2', { id: 'lockout-policy-title' }, L.lockoutPolicy));
  let answer;
  try {
    answer = await management.getLockoutPolicy({});
  } catch (e) {
    form.append(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
    return form;
  }
  let isDefault = answer.isDefault || (answer.policy?.isDefault ?? false);
  const note = h('p', { class: 'hint', 'data-testid': 'lockout-policy-source' }, isDefault ? L.policyIsDefault : L.policyIsOwn);
  const attempts = textField({ label: L.maxPasswordAttempts, name: 'maxPasswordAttempts', type: 'number', value: String(answer.policy?.maxPasswordAttempts ?? 0), hint: L.maxPasswordAttemptsHint, attrs: { min: 0, step: 1, inputmode: 'numeric' } });
  const save = h('button', { type: 'submit' }, L.saveLockoutPolicy);
  form.append(note, attempts.wrapper);
  if (mayWrite) form.append(h('div', { class: 'actions' }, save));
  attempts.input.readOnly = !mayWrite;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, L.saving, async () => {
      // What is not a whole number goes as it is typed (NaN → 0 would be "never locked"): the server names the field.
      const n = Number(attempts.input.value);
      try {
        if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error('not a count');
        if (isDefault) await management.addCustomLockoutPolicy({ maxPasswordAttempts: n });
        else await management.updateCustomLockoutPolicy({ maxPasswordAttempts: n });
        isDefault = false;
        note.textContent = L.policyIsOwn;
        clearProblems(form);
        announce(L.lockoutPolicySaved);
      } catch (e) {
        if (e instanceof Error && e.message === 'not a count') {
          showProblems(form, { code: 3, message: L.maxPasswordAttemptsHint, violations: [{ field: 'maxPasswordAttempts', description: L.maxPasswordAttemptsHint }] });
          return;
        }
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}

export async function organizationView(): Promise<View> {
  const org = await management.getMyOrganization({});
  const name = org.name || L.yourOrganization;
  // Without the write permissions: the policies and members shown, nothing to press (my-roles.ts).
  const may = await permissions(['org.write', 'org.policy.write', 'org.member.write', 'org.idp.read', 'org.idp.write'] as const);
  const reloadPage = () => window.dispatchEvent(new HashChangeEvent('hashchange'));
  const settings = orgSettingsSection({ id: org.id, name: org.name, state: org.state }, may['org.write'], reloadPage);
  const [login, lockout, members, idps] = await Promise.all([
    loginPolicyForm(may['org.policy.write']),
    lockoutPolicyForm(may['org.policy.write']),
    membersSection({
      mayWrite: may['org.member.write'],
      id: 'org-members',
      intro: L.orgMembersIntro,
      roles: ['ORG_OWNER', 'ORG_USER_MANAGER', 'ORG_OWNER_VIEWER'],
      list: async () => (await management.listOrgMembers({ query: { limit: 1000, asc: true } })).result,
      add: (userId, roles) => management.addOrgMember({ userId, roles }),
      update: (userId, roles) => management.updateOrgMember({ userId, roles }),
      remove: (userId) => management.removeOrgMember({ userId }),
    }),
    may['org.idp.read'] ? identityProvidersSection(may['org.idp.write']) : null,
  ]);
  return {
    title: L.organizationTitle(name),
    node: h(
      'section',
      { 'aria-labelledby': 'organization-title' },
      h('h1', { id: 'organization-title', tabindex: '-1' }, L.organizationTitle(name)),
      h('dl', { class: 'facts compact' }, h('dt', null, L.id), h('dd', { class: 'mono' }, org.id)),
      settings,
      login,
      lockout,
      members,
      idps,
    ),
  };
}
