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
import { grantsSection, lastLogin, membershipsSection, metadataSection } from './user-access.js';
import { lifecycle } from './user-lifecycle.js';
import { patSection } from './user-pats.js';
import { profileForm } from './user-profile.js';

export interface Trouble {
  kind: 'already-registered' | 'cancelled' | 'expired' | 'wrong-origin' | 'unsupported' | 'other';
  title: string;
  advice: string;
}

const ALREADY_REGISTERED: Trouble = {
  kind: 'already-registered',
  title: 'This security key is already registered.',
  advice: 'A key can be registered only once. Use a different key, or remove the old entry first.',
};

/** Words for a failure of the browser's part (navigator.credentials.create via startRegistration). */
export function browserTrouble(e: unknown): Trouble {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === 'InvalidStateError' || err?.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return ALREADY_REGISTERED;
  if (err?.name === 'NotAllowedError' || err?.name === 'AbortError' || err?.code === 'ERROR_CEREMONY_ABORTED') {
    return {
      kind: 'cancelled',
      title: 'The security key prompt was cancelled or timed out.',
      advice: 'No key was added. Select \u201cAdd security key\u201d again when your key is plugged in, then touch it when it blinks.',
    };
  }
  if (err?.name === 'SecurityError') {
    return {
      kind: 'wrong-origin',
      title: 'The browser refused to create a key for this address.',
      advice: `Open the console at an address Keyhold is configured for (by default http://localhost:<port>/console/, not 127.0.0.1). This page is ${window.location.origin}.`,
    };
  }
  if (err?.name === 'NotSupportedError' || /not supported/i.test(err?.message ?? '')) {
    return {
      kind: 'unsupported',
      title: 'This browser or key cannot create the kind of key Keyhold asks for.',
      advice: 'Try another browser or another security key. Security keys need https, or http on localhost.',
    };
  }
  return { kind: 'other', title: 'The browser could not create a key.', advice: err?.message ?? String(e) };
}

/** Words for a failure reported by Keyhold (RegisterU2F or VerifyU2FRegistration). */
export function serverTrouble(problem: Problem): Trouble {
  switch (problem.reason) {
    case 'CREDENTIAL_ALREADY_REGISTERED':
      return ALREADY_REGISTERED;
    case 'U2F_REGISTRATION_EXPIRED':
      return {
        kind: 'expired',
        title: 'This registration expired before it was finished.',
        advice: 'Registrations are valid for a few minutes. Select \u201cAdd security key\u201d to start again.',
      };
    case 'U2F_REGISTRATION_REPLACED':
      return {
        kind: 'expired',
        title: 'This registration was ended because newer ones were started.',
        advice: 'A user can have a few registrations open at once (other tabs count). Select \u201cAdd security key\u201d to start again.',
      };
    case 'U2F_ALREADY_VERIFIED':
      return { kind: 'other', title: 'This registration was already completed.', advice: 'The key is in the list below; to add another key, start a new registration.' };
    case 'ORIGIN_NOT_ALLOWED':
    case 'RP_ID_MISMATCH':
      return {
        kind: 'wrong-origin',
        title: 'Keyhold does not accept keys created on this address.',
        advice: `Open the console at an origin listed in KEYHOLD_WEBAUTHN_ORIGINS (this page is ${window.location.origin}).`,
      };
    default:
      return { kind: 'other', title: 'Keyhold did not accept the key.', advice: problem.message };
  }
}

function keysTable(userId: string, tokens: U2FToken[], reload: () => Promise<void>, showError: (t: Trouble) => void): HTMLElement {
  const ready = tokens.filter((t) => t.state === U2FState.U2F_STATE_READY);
  if (!ready.length) return h('p', { class: 'empty', 'data-testid': 'no-keys' }, 'No security keys yet.');
  return h(
    'table',
    { class: 'list', 'data-testid': 'keys' },
    h('caption', null, `Security keys (${ready.length})`),
    h(
      'thead',
      null,
      h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Format'), h('th', { scope: 'col' }, 'AAGUID'), h('th', { scope: 'col' }, 'Added'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions'))),
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
            'aria-label': `Remove security key ${t.name}`,
            onclick: async () => {
              if (!window.confirm(`Remove the security key \u201c${t.name}\u201d? It can no longer be used for this user.`)) return;
              await busy(remove, 'Removing\u2026', async () => {
                try {
                  await users.removeU2F({ userId, u2fId: t.id });
                  announce(`Security key ${t.name} removed.`);
                  await reload();
                } catch (e) {
                  showError({ kind: 'other', title: 'The key could not be removed.', advice: describeError(e).message });
                }
              });
            },
          },
          'Remove',
        );
        return h(
          'tr',
          { 'data-u2f-id': t.id },
          h('th', { scope: 'row' }, t.name),
          h('td', null, t.format || '\u2014'),
          h('td', { class: 'mono' }, t.aaguid || '\u2014'),
          h('td', null, tsText(t.creationDate)),
          h('td', null, remove),
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
  const pats = user?.type.case === 'machine' ? await patSection(userId) : null;
  const orgName = await management.getMyOrganization({}).then((o) => o.name, () => L.yourOrganization);
  const [roles, memberships, login, metadata] = await Promise.all([grantsSection(userId), membershipsSection(userId, orgName), lastLogin(userId), metadataSection(userId)]);
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
      }),
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
    keys.replaceChildren(keysTable(userId, result, reload, showError));
  };
  keys.replaceChildren(keysTable(userId, tokens.result, reload, showError));

  const add: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        alert.replaceChildren();
        naming.replaceChildren();
        add.disabled = true;
        try {
          status.textContent = 'Starting the registration\u2026';
          let registration;
          try {
            registration = await users.registerU2F({ userId });
          } catch (e) {
            showError(serverTrouble(describeError(e)));
            return;
          }
          status.textContent = 'Insert your security key and touch it when it blinks (or follow your browser\u2019s prompt).';
          let credential: RegistrationResponseJSON;
          try {
            credential = await startRegistration({
              optionsJSON: registration.publicKeyCredentialCreationOptions as unknown as PublicKeyCredentialCreationOptionsJSON,
            });
          } catch (e) {
            showError(browserTrouble(e));
            return;
          }
          status.textContent = 'The key answered. Now give it a name.';
          askName(registration.u2fId, credential);
        } finally {
          add.disabled = false;
        }
      },
    },
    'Add security key',
  );

  const askName = (u2fId: string, credential: RegistrationResponseJSON) => {
    const name = textField({ label: 'Key name', name: 'tokenName', value: 'Security key', required: true, hint: 'A name you will recognise, for example \u201cBlue key on my keyring\u201d. 1 to 200 characters.' });
    const save = h('button', { type: 'submit' }, 'Save key');
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          naming.replaceChildren();
          status.textContent = 'Cancelled; no key was added.';
          add.focus();
        },
      },
      'Cancel',
    );
    const form = h(
      'form',
      { method: 'post', novalidate: true, class: 'card narrow', 'aria-labelledby': 'name-key-title' },
      h('h3', { id: 'name-key-title' }, 'Name this key'),
      name.wrapper,
      h('div', { class: 'actions' }, save, cancel),
    );
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      await busy(save, 'Saving\u2026', async () => {
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
          status.textContent = `Security key \u201c${name.input.value.trim()}\u201d added.`;
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
      h('nav', { 'aria-label': 'Breadcrumb', class: 'breadcrumb' }, h('a', { href: '#/users' }, 'Users'), ' / ', h('span', { 'aria-current': 'page' }, username)),
      h('h1', { id: 'user-title', tabindex: '-1' }, displayName),
      h(
        'dl',
        { class: 'facts compact' },
        h('dt', null, 'User ID'),
        h('dd', { class: 'mono' }, user?.userId ?? userId),
        h('dt', null, 'Username'),
        h('dd', null, username),
        human?.email?.email ? [h('dt', null, 'Email'), h('dd', null, human.email.email)] : null,
        h('dt', null, 'Kind'),
        h('dd', null, user?.type.case === 'machine' ? 'machine user' : 'human user'),
        h('dt', null, 'Created'),
        h('dd', null, tsText(user?.details?.creationDate)),
        login,
      ),
      state,
      user ? profileForm(user, () => window.dispatchEvent(new HashChangeEvent('hashchange'))) : null,
      pats,
      roles,
      memberships,
      metadata,
      h(
        'section',
        { 'aria-labelledby': 'keys-title', class: 'keys' },
        h('h2', { id: 'keys-title' }, 'Security keys'),
        h('p', null, 'Security keys (FIDO2 / U2F) are a second factor for this user. Adding one asks the browser to talk to the key.'),
        keys,
        h('div', { class: 'actions' }, add),
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
    h('h3', { id: 'recovery-codes-title' }, 'Save your recovery codes'),
    h('p', null, 'If you lose your security key, each of these codes signs you in once in its place. Keep them somewhere safe, away from the key: they are shown only now.'),
    h('ol', { class: 'mono' }, codes.map((c) => h('li', null, c))),
  );
}
