// A machine user's personal access tokens on its page: the list
// (ListPersonalAccessTokens: ids and dates, never a token), "New token" with
// an optional expiry (AddPersonalAccessToken; the token shown once), and
// "Revoke" (RemovePersonalAccessToken; refused everywhere within 2 s).
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { PersonalAccessToken } from '../../../gen/keyhold/management/v1/management_pb.js';
import { describeError, management } from '../api.js';
import { secretOnce } from '../components.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { tsText } from '../view.js';

function patTable(userId: string, tokens: readonly PersonalAccessToken[], reload: () => Promise<void>, problem: HTMLElement): HTMLElement {
  if (!tokens.length) return h('p', { class: 'empty', 'data-testid': 'no-pats' }, 'No tokens.');
  return h(
    'table',
    { class: 'list', 'data-testid': 'pats' },
    h('caption', null, `Tokens (${tokens.length})`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Token ID'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Expires'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
    h(
      'tbody',
      null,
      tokens.map((t) => {
        const revoke: HTMLButtonElement = h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': `Revoke token ${t.id}`,
            onclick: async () => {
              if (!window.confirm(`Revoke the token ${t.id}? Whatever uses it is refused within seconds.`)) return;
              await busy(revoke, 'Revoking\u2026', async () => {
                try {
                  await management.removePersonalAccessToken({ userId, tokenId: t.id });
                  announce(`Token ${t.id} revoked.`);
                  await reload();
                } catch (e) {
                  problem.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
                }
              });
            },
          },
          'Revoke',
        );
        return h(
          'tr',
          { 'data-token-id': t.id },
          h('th', { scope: 'row', class: 'mono' }, t.id),
          h('td', null, tsText(t.details?.creationDate)),
          h('td', null, t.expirationDate ? tsText(t.expirationDate) : 'never'),
          h('td', null, revoke),
        );
      }),
    ),
  );
}

export async function patSection(userId: string): Promise<HTMLElement> {
  const listBox = h('div', { 'data-testid': 'pat-list' });
  const problem = h('div', { class: 'alert-box', role: 'alert' });
  const created = h('div');
  const reload = async () => {
    const { result } = await management.listPersonalAccessTokens({ userId, query: { limit: 100, asc: true } });
    listBox.replaceChildren(patTable(userId, result, reload, problem));
  };
  await reload();

  const expiry = textField({ label: 'Expires on', name: 'expirationDate', type: 'date', hint: 'Optional: the token stops working at the end of this day (UTC). Empty: it does not expire.' });
  const create = h('button', { type: 'submit' }, 'Create token');
  const form = h('form', { method: 'post', novalidate: true, class: 'card narrow', 'aria-labelledby': 'new-pat-title' }, h('h3', { id: 'new-pat-title' }, 'New token'), expiry.wrapper, h('div', { class: 'actions' }, create));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, 'Creating\u2026', async () => {
      try {
        const day = expiry.input.value;
        const res = await management.addPersonalAccessToken({ userId, expirationDate: day ? timestampFromDate(new Date(`${day}T23:59:59Z`)) : undefined });
        clearProblems(form);
        created.replaceChildren(secretOnce(res.token, 'New personal access token', 'Personal access token'));
        announce('Token created. Copy it now: you will not see it again.');
        created.querySelector<HTMLInputElement>('input')?.focus();
        await reload();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  return h(
    'section',
    { 'aria-labelledby': 'pats-title', 'data-testid': 'pat-section' },
    h('h2', { id: 'pats-title' }, 'Personal access tokens'),
    h('p', null, 'The machine signs in with one of these as a bearer token. Keyhold keeps only their hashes: a token is shown once, when it is made.'),
    created,
    listBox,
    problem,
    form,
  );
}
