// #/users: "New human user", open a user by id, and the users this tab created.
// (The API has no user search yet, so there is no full list to show.)
import { auth, describeError, users } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { href, type View } from '../view.js';

const RECENT_KEY = 'keyhold.console.recentUsers';

interface Recent {
  userId: string;
  username: string;
}

function recentUsers(): Recent[] {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((r) => typeof r?.userId === 'string' && typeof r?.username === 'string') : [];
  } catch {
    return [];
  }
}

function remember(user: Recent): void {
  const list = [user, ...recentUsers().filter((r) => r.userId !== user.userId)].slice(0, 20);
  sessionStorage.setItem(RECENT_KEY, JSON.stringify(list));
}

export async function usersView(): Promise<View> {
  const self = await auth.getMyUser({}).catch(() => undefined);

  const username = textField({ label: 'Username', name: 'username', required: true, autocomplete: 'off' });
  const given = textField({ label: 'Given name', name: 'givenName', field: 'profile.givenName', required: true });
  const family = textField({ label: 'Family name', name: 'familyName', field: 'profile.familyName', required: true });
  const display = textField({ label: 'Display name', name: 'displayName', field: 'profile.displayName', hint: 'Optional; "given family" when empty.' });
  const email = textField({ label: 'Email', name: 'email', field: 'email.email', type: 'email', required: true });
  const create = h('button', { type: 'submit' }, 'Create user');
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-user-title' },
    h('h2', { id: 'new-user-title' }, 'New human user'),
    username.wrapper,
    given.wrapper,
    family.wrapper,
    display.wrapper,
    email.wrapper,
    h('div', { class: 'actions' }, create),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, 'Creating\u2026', async () => {
      try {
        const res = await users.addHumanUser({
          username: username.input.value,
          profile: { givenName: given.input.value, familyName: family.input.value, displayName: display.input.value },
          email: { email: email.input.value },
        });
        clearProblems(form);
        remember({ userId: res.userId, username: username.input.value.trim() });
        announce(`User ${username.input.value.trim()} created.`);
        window.location.hash = href('users', res.userId);
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  const userId = textField({ label: 'User ID', name: 'userId', required: true });
  const open = h('button', { type: 'submit' }, 'Open user');
  const openForm = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'open-user-title' }, h('h2', { id: 'open-user-title' }, 'Open a user'), userId.wrapper, h('div', { class: 'actions' }, open));
  openForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = userId.input.value.trim();
    if (id) window.location.hash = href('users', id);
    else userId.input.focus();
  });

  const recent = recentUsers();
  const known = [
    ...(self?.user ? [{ userId: self.user.userId, username: `${self.user.username} (you)` }] : []),
    ...recent.filter((r) => r.userId !== self?.user?.userId),
  ];
  const list = h(
    'section',
    { 'aria-labelledby': 'recent-title' },
    h('h2', { id: 'recent-title' }, 'Users in this session'),
    known.length
      ? h('ul', { class: 'plain links', 'data-testid': 'recent-users' }, known.map((r) => h('li', null, h('a', { href: href('users', r.userId) }, r.username), ' ', h('span', { class: 'mono muted' }, r.userId))))
      : h('p', { class: 'empty' }, 'None yet.'),
    h('p', { class: 'hint' }, 'Keyhold\u2019s API has no user search yet; the console lists you and the users created in this tab.'),
  );

  return {
    title: 'Users',
    node: h('section', { 'aria-labelledby': 'users-title' }, h('h1', { id: 'users-title', tabindex: '-1' }, 'Users'), list, form, openForm),
  };
}
