// A user's lifecycle on its page: the state, and the actions that state allows
// (DeactivateUser, ReactivateUser, LockUser, UnlockUser, RemoveUser). Tokens
// and keys of a deactivated, locked or removed user stop working (README).
import { UserState, type User } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, users } from '../api.js';
import { announce, h } from '../dom.js';
import { busy } from '../forms.js';

export const USER_STATES: Record<number, string> = {
  [UserState.ACTIVE]: 'active',
  [UserState.INACTIVE]: 'deactivated',
  [UserState.LOCKED]: 'locked',
  [UserState.DELETED]: 'removed',
};

interface Action {
  label: string;
  busy: string;
  done: string;
  /** Asked before; nothing asked when absent. */
  confirm?: string;
  danger?: boolean;
  run(userId: string): Promise<unknown>;
}

const DEACTIVATE: Action = { label: 'Deactivate user', busy: 'Deactivating\u2026', done: 'deactivated', confirm: 'It can no longer sign in, and its tokens stop working, until it is reactivated.', run: (userId) => users.deactivateUser({ userId }) };
const REACTIVATE: Action = { label: 'Reactivate user', busy: 'Reactivating\u2026', done: 'reactivated', run: (userId) => users.reactivateUser({ userId }) };
const LOCK: Action = { label: 'Lock user', busy: 'Locking\u2026', done: 'locked', confirm: 'It can no longer sign in until it is unlocked.', run: (userId) => users.lockUser({ userId }) };
const UNLOCK: Action = { label: 'Unlock user', busy: 'Unlocking\u2026', done: 'unlocked', run: (userId) => users.unlockUser({ userId }) };
const REMOVE: Action = { label: 'Remove user', busy: 'Removing\u2026', done: 'removed', danger: true, confirm: 'This cannot be undone: its tokens and keys stop working.', run: (userId) => users.removeUser({ userId }) };

/** What each state allows. */
const ACTIONS: Record<number, Action[]> = {
  [UserState.ACTIVE]: [DEACTIVATE, LOCK, REMOVE],
  [UserState.INACTIVE]: [REACTIVATE, REMOVE],
  [UserState.LOCKED]: [UNLOCK, DEACTIVATE, REMOVE],
};

/** The buttons for what `user`'s state allows; `done` after one worked, `failed` with the server's words. */
export function lifecycleButtons(user: User, done: (removed: boolean) => Promise<void>, failed: (message: string) => void, small = false): HTMLButtonElement[] {
  return (ACTIONS[user.state] ?? []).map((action) => {
    const button: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: `${action.danger ? 'danger' : 'secondary'}${small ? ' small' : ''}`,
        'aria-label': small ? `${action.label.replace(/ user$/, '')} ${user.username}` : undefined,
        onclick: async () => {
          if (action.confirm && !window.confirm(`${action.label} \u201c${user.username}\u201d? ${action.confirm}`)) return;
          await busy(button, action.busy, async () => {
            try {
              await action.run(user.userId);
              announce(`User ${user.username} ${action.done}.`);
              await done(action === REMOVE);
            } catch (e) {
              failed(describeError(e).message);
            }
          });
        },
      },
      small ? action.label.replace(/ user$/, '') : action.label,
    );
    return button;
  });
}

/** The state line and action buttons; `changed` re-reads the user (or leaves the page after removal). */
export function lifecycle(user: User, changed: (removed: boolean) => Promise<void>): HTMLElement {
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const buttons = lifecycleButtons(user, changed, (message) => status.replaceChildren(h('p', { class: 'error' }, message)));
  return h(
    'section',
    { 'aria-labelledby': 'lifecycle-title', 'data-testid': 'lifecycle' },
    h('h2', { id: 'lifecycle-title', tabindex: '-1' }, 'State'),
    h('p', null, 'This user is ', h('strong', { 'data-testid': 'user-state' }, USER_STATES[user.state] ?? 'unknown'), '.'),
    buttons.length ? h('div', { class: 'actions', role: 'group', 'aria-label': `Actions for ${user.username}` }, buttons) : null,
    status,
  );
}
