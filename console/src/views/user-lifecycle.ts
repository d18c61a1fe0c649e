// A user's lifecycle on its page: the state, and the actions that state allows
// (DeactivateUser, ReactivateUser, LockUser, UnlockUser, RemoveUser). Tokens
// and keys of a deactivated, locked or removed user stop working (README).
import { UserState, type User } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, users } from '../api.js';
import { announce, h } from '../dom.js';
import { busy } from '../forms.js';
import { L } from '../i18n.js';

/** A user's state in words, in the console's language. */
export function userState(state: UserState): string {
  const words: Record<number, string> = { [UserState.ACTIVE]: L.active, [UserState.INACTIVE]: L.deactivated, [UserState.LOCKED]: L.locked, [UserState.DELETED]: L.removed };
  return words[state] ?? L.unknown;
}

interface Action {
  /** The button's words: long on the user's page, short (with the username as its accessible name) in lists. */
  label: string;
  short: string;
  shortFor(username: string): string;
  busy: string;
  done(username: string): string;
  /** Asked before; nothing asked when absent. */
  confirm?(username: string): string;
  danger?: boolean;
  run(userId: string): Promise<unknown>;
}

// Functions, not constants: the words are those of the language at the time.
const DEACTIVATE = (): Action => ({ label: L.deactivateUser, short: L.deactivate, shortFor: L.deactivateNamed, busy: L.deactivating, done: L.userDeactivated, confirm: L.confirmDeactivateUser, run: (userId) => users.deactivateUser({ userId }) });
const REACTIVATE = (): Action => ({ label: L.reactivateUser, short: L.reactivate, shortFor: L.reactivateNamed, busy: L.reactivating, done: L.userReactivated, run: (userId) => users.reactivateUser({ userId }) });
const LOCK = (): Action => ({ label: L.lockUser, short: L.lock, shortFor: L.lockNamed, busy: L.locking, done: L.userLocked, confirm: L.confirmLockUser, run: (userId) => users.lockUser({ userId }) });
const UNLOCK = (): Action => ({ label: L.unlockUser, short: L.unlock, shortFor: L.unlockNamed, busy: L.unlocking, done: L.userUnlocked, run: (userId) => users.unlockUser({ userId }) });
const REMOVE = (): Action => ({ label: L.removeUser, short: L.remove, shortFor: L.removeNamed, busy: L.removing, done: L.userRemoved, danger: true, confirm: L.confirmRemoveUser, run: (userId) => users.removeUser({ userId }) });

/** What each state allows. */
const ACTIONS: Record<number, () => Action[]> = {
  [UserState.ACTIVE]: () => [DEACTIVATE(), LOCK(), REMOVE()],
  [UserState.INACTIVE]: () => [REACTIVATE(), REMOVE()],
  [UserState.LOCKED]: () => [UNLOCK(), DEACTIVATE(), REMOVE()],
};

/** The buttons for what `user`'s state allows; `done` after one worked, `failed` with the server's words. */
export function lifecycleButtons(user: User, done: (removed: boolean) => Promise<void>, failed: (message: string) => void, small = false, allowed = true): HTMLButtonElement[] {
  // A caller without user.write gets no button that could only be refused (my-roles.ts).
  if (!allowed) return [];
  return (ACTIONS[user.state]?.() ?? []).map((action) => {
    const button: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: `${action.danger ? 'danger' : 'secondary'}${small ? ' small' : ''}`,
        'aria-label': small ? action.shortFor(user.username) : undefined,
        onclick: async () => {
          if (action.confirm && !window.confirm(action.confirm(user.username))) return;
          await busy(button, action.busy, async () => {
            try {
              await action.run(user.userId);
              announce(action.done(user.username));
              await done(action.danger === true);
            } catch (e) {
              failed(describeError(e).message);
            }
          });
        },
      },
      small ? action.short : action.label,
    );
    return button;
  });
}

/** The state line and action buttons; `changed` re-reads the user (or leaves the page after removal). */
export function lifecycle(user: User, changed: (removed: boolean) => Promise<void>, allowed = true): HTMLElement {
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const buttons = lifecycleButtons(user, changed, (message) => status.replaceChildren(h('p', { class: 'error' }, message)), false, allowed);
  return h(
    'section',
    { 'aria-labelledby': 'lifecycle-title', 'data-testid': 'lifecycle' },
    h('h2', { id: 'lifecycle-title', tabindex: '-1' }, L.state),
    h('p', null, L.userStateIs, h('strong', { 'data-testid': 'user-state' }, userState(user.state)), '.'),
    buttons.length ? h('div', { class: 'actions', role: 'group', 'aria-label': L.actionsFor(user.username) }, buttons) : null,
    status,
  );
}
