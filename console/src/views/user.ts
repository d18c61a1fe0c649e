// #/users/<id>: the user, its state and lifecycle actions (./user-lifecycle.ts),
// a human's profile (./user-profile.ts),
// a machine user's access tokens (./user-pats.ts), its roles, memberships,
// last login and metadata (./user-access.ts), and the security keys. "Add security key" runs
// RegisterU2F → @simplewebauthn/browser startRegistration → name the key →
// VerifyU2FRegistration, and says what went wrong in plain words.
import type { JsonObject } from '@bufbuild/protobuf';
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON } from '@simplewebauthn/browser';
import { U2FState, type U2FToken } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, management, users, type Problem } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { tsText, type View } from '../view.js';
import { L } from '../i18n.js';
import { canSomewhere, permissions } from '../my-roles.js';
import { grantsSection, lastLogin, membershipsSection, metadataSection } from './user-access.js';
import { lifecycle } from './user-lifecycle.js';
import { patSection } from './user-pats.js';
import { profileForm } from './user-profile.js';

export interface Trouble {
  kind: 'already-registered' | 'cancelled' | 'expired' | 'wrong-origin' | 'unsupported' | 'other';
  title: string;
  advice: string;
}

const ALREADY_REGISTERED = (): Trouble => ({ kind: 'already-registered', title: L.keyAlreadyRegistered, advice: L.keyAlreadyRegisteredAdvice });

/** Words for a failure of the browser's part (navigator.credentials.create via startRegistration). */
export function browserTrouble(e: unknown): Trouble {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === 'InvalidStateError' || err?.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return ALREADY_REGISTERED();
  if (err?.name === 'NotAllowedError' || err?.name === 'AbortError' || err?.code === 'ERROR_CEREMONY_ABORTED') {
    return {
      kind: 'cancelled',
      title: L.keyCancelled,
      advice: L.keyCancelledAdvice,
    };
  }
  if (err?.name === 'SecurityError') {
    return {
      kind: 'wrong-origin',
      title: L.keyWrongOrigin,
      advice: L.keyWrongOriginAdvice(window.location.origin),
    };
  }
  if (err?.name === 'NotSupportedError' || /not supported/i.test(err?.message ?? '')) {
    return {
      kind: 'unsupported',
      title: L.keyUnsupported,
      advice: L.keyUnsupportedAdvice,
    };
  }
  return { kind: 'other', title: L.keyBrowserFailed, advice: err?.message ?? String(e) };
}

/** Words for a failure reported by Keyhold (RegisterU2F or VerifyU2FRegistration). */
export function serverTrouble(problem: Problem): Trouble {
  switch (problem.reason) {
    case 'CREDENTIAL_ALREADY_REGISTERED':
      return ALREADY_REGISTERED();
    case 'U2F_REGISTRATION_EXPIRED':
      return {
        kind: 'expired',
        title: L.keyExpired,
        advice: L.keyExpiredAdvice,
      };
    case 'U2F_REGISTRATION_REPLACED':
      return {
        kind: 'expired',
        title: L.keyReplaced,
        advice: L.keyReplacedAdvice,
      };
    case 'U2F_ALREADY_VERIFIED':
      return { kind: 'other', title: L.keyAlreadyVerified, advice: L.keyAlreadyVerifiedAdvice };
    case 'ORIGIN_NOT_ALLOWED':
    case 'RP_ID_MISMATCH':
      return {
        kind: 'wrong-origin',
        title: L.keyOriginRefused,
        advice: L.keyOriginRefusedAdvice(window.location.origin),
      };
    default:
      return { kind: 'other', title: L.keyRefused, advice: problem.message };
  }
}

function keysTable(userId: string, tokens: U2FToken[], reload: () => Promise<void>, showError: (t: Trouble) => void, mayWrite: boolean): HTMLElement {
  const ready = tokens.filter((t) => t.state === U2FState.U2F_STATE_READY);
  if (!ready.length) return h('p', { class: 'empty', 'data-testid': 'no-keys' }, L.noKeys);
  return h(
    'table',
    { class: 'list', 'data-testid': 'keys' },
    h('caption', null, L.keysCount(ready.length)),
    h(
      'thead',
      null,
      h('tr', null, h('th', { scope: 'col' }, L.name), h('th', { scope: 'col' }, L.format), h('th', { scope: 'col' }, 'AAGUID'), h('th', { scope: 'col' }, L.added), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions))),
    ),
    h(
      'tbody',
      null,
      ready.map((t) => {
        const remove: HTMLButtonElement = h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': L.removeKey(t.name),
            onclick: async () => {
              if (!window.confirm(L.confirmRemoveKey(t.name))) return;
              await busy(remove, L.removing, async () => {
                try {
                  await users.removeU2F({ userId, u2fId: t.id });
                  announce(L.keyRemoved(t.name));
                  await reload();
                } catch (e) {
                  showError({ kind: 'other', title: L.keyNotRemoved, advice: describeError(e).message });
                }
              });
            },
          },
          L.remove,
        );
        return h(
          'tr',
          { 'data-u2f-id': t.id },
          h('th', { scope: 'row' }, t.name),
          h('td', null, t.format || '\u2014'),
          h('td', { class: 'mono' }, t.aaguid || '\u2014'),
          h('td', null, tsText(t.creationDate)),
          h('td', null, mayWrite ? remove : null),
        );
      }),
    ),
  );
}

export async function userView(userId: string): Promise<View> {
  const [{ user }, tokens] = await Promise.all([users.getUserByID({ userId }), users.listU2FTokens({ userId })]);
  const username = user?.username ?? userId;
  const human = user?.type.case === 'human' ? user.type.value : undefined;
  const displayName = human?.profile?.displayName || (user?.type.case === 'machine' ? user.type.value.name : '') || username;
  const [orgName, may, grantWriter] = await Promise.all([
    management.getMyOrganization({}).then((o) => o.name, () => L.yourOrganization),
    permissions(['user.write', 'user.credential.write'] as const),
    // A project owner grants its project's roles: the grant controls show for it too.
    canSomewhere('user.grant.write'),
  ]);
  const pats = user?.type.case === 'machine' ? await patSection(userId, may['user.write']) : null;
  const [roles, memberships, login, metadata] = await Promise.all([
    grantsSection(userId, grantWriter),
    membershipsSection(userId, orgName),
    lastLogin(userId),
    metadataSection(userId, may['user.write']),
  ]);
  const state = h('div');
  const showState = (u: NonNullable<typeof user>) =>
    state.replaceChildren(
      lifecycle(u, async (removed) => {
        if (removed) {
          window.location.hash = '#/users';
          return;
        }
        const fresh = await users.getUserByID({ userId });
        if (fresh.user) showState(fresh.user);
        state.querySelector<HTMLElement>('h2')?.focus();
      }, may['user.write']),
    );
  if (user) showState(user);

  const keys = h('div', { 'data-testid': 'key-list' });
  const status = h('p', { class: 'status-line', role: 'status', 'data-testid': 'key-status' });
  const alert = h('div', { class: 'alert-box', role: 'alert', 'data-testid': 'key-error' });
  const naming = h('div');

  const showError = (t: Trouble) => {
    status.textContent = '';
    alert.replaceChildren(h('div', { class: 'error', 'data-kind': t.kind }, h('p', null, h('strong', null, t.title)), h('p', null, t.advice)));
  };
  const reload = async () => {
    const { result } = await users.listU2FTokens({ userId });
    keys.replaceChildren(keysTable(userId, result, reload, showError, may['user.credential.write']));
  };
  keys.replaceChildren(keysTable(userId, tokens.result, reload, showError, may['user.credential.write']));

  const add: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        alert.replaceChildren();
        naming.replaceChildren();
        add.disabled = true;
        try {
          status.textContent = L.keyStarting;
          let registration;
          try {
            registration = await users.registerU2F({ userId });
          } catch (e) {
            showError(serverTrouble(describeError(e)));
            return;
          }
          status.textContent = L.keyInsert;
          let credential: RegistrationResponseJSON;
          try {
            credential = await startRegistration({
              optionsJSON: registration.publicKeyCredentialCreationOptions as unknown as PublicKeyCredentialCreationOptionsJSON,
            });
          } catch (e) {
            showError(browserTrouble(e));
            return;
          }
          status.textContent = L.keyAnswered;
          askName(registration.u2fId, credential);
        } finally {
          add.disabled = false;
        }
      },
    },
    L.addKey,
  );

  const askName = (u2fId: string, credential: RegistrationResponseJSON) => {
    const name = textField({ label: L.keyName, name: 'tokenName', value: L.keyDefaultName, required: true, hint: L.keyNameHint });
    const save = h('button', { type: 'submit' }, L.saveKey);
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          naming.replaceChildren();
          status.textContent = L.keyNamingCancelled;
          add.focus();
        },
      },
      L.cancel,
    );
    const form = h(
      'form',
      { method: 'post', novalidate: true, class: 'card narrow', 'aria-labelledby': 'name-key-title' },
      h('h3', { id: 'name-key-title' }, L.nameThisKey),
      name.wrapper,
      h('div', { class: 'actions' }, save, cancel),
    );
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      await busy(save, L.saving, async () => {
        try {
          const answer = await users.verifyU2FRegistration({
            userId,
            u2fId,
            tokenName: name.input.value,
            // Struct: plain JSON (no undefined members).
            publicKeyCredential: JSON.parse(JSON.stringify(credential)) as JsonObject,
          });
          clearProblems(form);
          naming.replaceChildren();
          status.textContent = L.keyAdded(name.input.value.trim());
          await reload();
          // The user's first key: its recovery codes (for a lost key), in this answer only — shown here once.
          if (answer.recoveryCodes.length) naming.replaceChildren(recoveryCodesCard(answer.recoveryCodes));
          add.focus();
        } catch (e) {
          const problem = describeError(e);
          if (problem.violations.some((v) => v.field === 'tokenName')) {
            showProblems(form, { ...problem, violations: problem.violations.filter((v) => v.field === 'tokenName') });
            return;
          }
          naming.replaceChildren();
          showError(serverTrouble(problem));
          add.focus();
        }
      });
    });
    naming.replaceChildren(form);
    name.input.focus();
    name.input.select();
  };

  return {
    title: displayName,
    node: h(
      'section',
      { 'aria-labelledby': 'user-title' },
      h('nav', { 'aria-label': L.breadcrumb, class: 'breadcrumb' }, h('a', { href: '#/users' }, L.usersTitle), ' / ', h('span', { 'aria-current': 'page' }, username)),
      h('h1', { id: 'user-title', tabindex: '-1' }, displayName),
      h(
        'dl',
        { class: 'facts compact' },
        h('dt', null, L.userId),
        h('dd', { class: 'mono' }, user?.userId ?? userId),
        h('dt', null, L.username),
        h('dd', null, username),
        human?.email?.email ? [h('dt', null, L.email), h('dd', null, human.email.email)] : null,
        h('dt', null, L.kind),
        h('dd', null, user?.type.case === 'machine' ? L.machineUser : L.humanUser),
        h('dt', null, L.created),
        h('dd', null, tsText(user?.details?.creationDate)),
        login,
      ),
      state,
      user && may['user.write'] ? profileForm(user, () => window.dispatchEvent(new HashChangeEvent('hashchange'))) : null,
      pats,
      roles,
      memberships,
      metadata,
      h(
        'section',
        { 'aria-labelledby': 'keys-title', class: 'keys' },
        h('h2', { id: 'keys-title' }, L.keys),
        h('p', null, L.keysIntro),
        keys,
        may['user.credential.write'] ? h('div', { class: 'actions' }, add) : null,
        status,
        alert,
        naming,
      ),
    ),
  };
}

/** The recovery codes a first key brought (for a lost key): shown once, never fetched again. */
function recoveryCodesCard(codes: readonly string[]): HTMLElement {
  return h(
    'section',
    { class: 'card narrow', 'aria-labelledby': 'recovery-codes-title', 'data-testid': 'recovery-codes' },
    h('h3', { id: 'recovery-codes-title' }, L.recoveryTitle),
    h('p', null, L.recoveryIntro),
    h('ol', { class: 'mono' }, codes.map((c) => h('li', null, c))),
  );
}
