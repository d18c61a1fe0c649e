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
import { L } from '../i18n.js';
import { tsText } from '../view.js';

function patTable(userId: string, tokens: readonly PersonalAccessToken[], reload: () => Promise<void>, problem: HTMLElement, mayWrite: boolean): HTMLElement {
  if (!tokens.length) return h('p', { class: 'empty', 'data-testid': 'no-pats' }, L.noTokens);
  return h(
    'table',
    { class: 'list', 'data-testid': 'pats' },
    h('caption', null, L.tokensCount(tokens.length)),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.tokenId), h('th', { scope: 'col' }, L.created), h('th', { scope: 'col' }, L.expires), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
    h(
      'tbody',
      null,
      tokens.map((t) => {
        const revoke: HTMLButtonElement = h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': L.revokeToken(t.id),
            onclick: async () => {
              if (!window.confirm(L.confirmRevokeToken(t.id))) return;
              await busy(revoke, L.revoking, async () => {
                try {
                  await management.removePersonalAccessToken({ userId, tokenId: t.id });
                  announce(L.tokenRevoked(t.id));
                  await reload();
                } catch (e) {
                  problem.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
                }
              });
            },
          },
          L.revoke,
        );
        return h(
          'tr',
          { 'data-token-id': t.id },
          h('th', { scope: 'row', class: 'mono' }, t.id),
          h('td', null, tsText(t.details?.creationDate)),
          h('td', null, t.expirationDate ? tsText(t.expirationDate) : L.never),
          h('td', null, mayWrite ? revoke : null),
        );
      }),
    ),
  );
}

export async function patSection(userId: string, mayWrite = true): Promise<HTMLElement> {
  const listBox = h('div', { 'data-testid': 'pat-list' });
  const problem = h('div', { class: 'alert-box', role: 'alert' });
  const created = h('div');
  const reload = async () => {
    const { result } = await management.listPersonalAccessTokens({ userId, query: { limit: 100, asc: true } });
    listBox.replaceChildren(patTable(userId, result, reload, problem, mayWrite));
  };
  await reload();

  const expiry = textField({ label: L.expiresOn, name: 'expirationDate', type: 'date', hint: L.expiresOnHint });
  const create = h('button', { type: 'submit' }, L.createToken);
  const form = h('form', { method: 'post', novalidate: true, class: 'card narrow', 'aria-labelledby': 'new-pat-title' }, h('h3', { id: 'new-pat-title' }, L.newToken), expiry.wrapper, h('div', { class: 'actions' }, create));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, L.creating, async () => {
      try {
        const day = expiry.input.value;
        const res = await management.addPersonalAccessToken({ userId, expirationDate: day ? timestampFromDate(new Date(`${day}T23:59:59Z`)) : undefined });
        clearProblems(form);
        created.replaceChildren(secretOnce(res.token, L.newPat, L.patLabel, 'secret-value'));
        announce(L.tokenCreated);
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
    h('h2', { id: 'pats-title' }, L.pats),
    h('p', null, L.patsIntro),
    created,
    listBox,
    problem,
    mayWrite ? form : null,
  );
}
