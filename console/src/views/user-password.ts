// A human user's password on its page, for a caller who may set it
// (user.credential.write under containment; the server decides): a new
// password set here (SetPassword, by default to be changed at the next
// sign-in), or the login's reset link — mailed (PasswordReset sendLink) or,
// while no mail server is configured, shown once to hand over (returnCode).
import { describeError, users } from '../api.js';
import { announce, copyableValue, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { checkField } from './project-admin.js';

type ResetLink = { mailed: true } | { mailed: false; link: string };

async function resetLink(userId: string): Promise<ResetLink> {
  try {
    await users.passwordReset({ userId, medium: { case: 'sendLink', value: {} } });
    return { mailed: true };
  } catch (e) {
    if (describeError(e).reason !== 'PASSWORD_RESET_MAIL_NOT_CONFIGURED') throw e;
  }
  const answer = await users.passwordReset({ userId, medium: { case: 'returnCode', value: {} } });
  return { mailed: false, link: answer.resetUrl ?? '' };
}

export function passwordSection(userId: string, who: string): HTMLElement {
  const password = textField({ label: L.newPassword, name: 'password', field: 'newPassword.password', type: 'password', hint: L.newPasswordHint, autocomplete: 'new-password' });
  const changeRequired = checkField(L.changeRequired, 'changeRequired', true, L.changeRequiredHint);
  const set = h('button', { type: 'submit' }, L.setPassword);
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'set-password-title', 'data-testid': 'set-password' }, h('h3', { id: 'set-password-title' }, L.setPassword), password.wrapper, changeRequired.wrapper, h('div', { class: 'actions' }, set));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(set, L.saving, async () => {
      try {
        await users.setPassword({ userId, newPassword: { password: password.input.value, changeRequired: changeRequired.input.checked } });
        clearProblems(form);
        password.input.value = '';
        announce(L.passwordSet(who));
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  const result = h('div', { 'data-testid': 'reset-result' });
  const send: HTMLButtonElement = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: () =>
      busy(send, L.sending, async () => {
        result.replaceChildren();
        try {
          const sent = await resetLink(userId);
          if (sent.mailed) {
            result.replaceChildren(h('p', { class: 'status-line', role: 'status' }, L.resetLinkMailed(who)));
            return;
          }
          result.replaceChildren(h('div', { class: 'card narrow' }, h('p', null, L.resetLinkIntro(who)), copyableValue(L.resetLink, sent.link, { testId: 'reset-link' }), h('p', { class: 'hint' }, L.resetLinkHint)));
        } catch (e) {
          result.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
        }
      }),
  }, L.sendResetLink);

  return h(
    'section',
    { 'aria-labelledby': 'password-title', 'data-testid': 'password' },
    h('h2', { id: 'password-title' }, L.password),
    h('p', null, L.passwordIntro),
    form,
    h('div', { class: 'card' }, h('h3', null, L.resetLinkTitle), h('p', null, L.resetLinkAbout), h('div', { class: 'actions' }, send), result),
  );
}
