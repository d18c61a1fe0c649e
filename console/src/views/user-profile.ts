// A human user's profile on its page: username, names and email, sent as
// UpdateHumanUser with only what changed (what the request leaves out stays).
import type { User } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, users } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';

export function profileForm(user: User, saved: () => void): HTMLElement | null {
  if (user.type.case !== 'human') return null;
  const human = user.type.value;
  const username = textField({ label: L.username, name: 'username', value: user.username, required: true });
  const given = textField({ label: L.givenName, name: 'givenName', field: 'profile.givenName', value: human.profile?.givenName, required: true });
  const family = textField({ label: L.familyName, name: 'familyName', field: 'profile.familyName', value: human.profile?.familyName, required: true });
  const display = textField({ label: L.displayName, name: 'displayName', field: 'profile.displayName', value: human.profile?.displayName });
  const email = textField({ label: L.email, name: 'email', field: 'email.email', type: 'email', value: human.email?.email, required: true });
  const save = h('button', { type: 'submit' }, L.saveProfile);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'profile-title' },
    h('h2', { id: 'profile-title' }, L.profile),
    username.wrapper,
    given.wrapper,
    family.wrapper,
    display.wrapper,
    email.wrapper,
    h('div', { class: 'actions' }, save),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, L.saving, async () => {
      try {
        const newUsername = username.input.value.trim();
        const newEmail = email.input.value.trim();
        await users.updateHumanUser({
          userId: user.userId,
          username: newUsername !== user.username ? username.input.value : undefined,
          profile: { givenName: given.input.value, familyName: family.input.value, displayName: display.input.value },
          email: newEmail !== human.email?.email ? { email: email.input.value } : undefined,
        });
        clearProblems(form);
        announce(L.profileSaved);
        saved();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}
