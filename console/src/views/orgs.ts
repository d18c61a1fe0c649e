// #/orgs: the organizations the caller may read (ListOrganizations, searched
// by name and paged by the server), which one the console acts in, and
// "Switch": from then on every call carries `x-service-orgid` (../api.ts), so
// projects, apps and users are those of the chosen organization.
import type { Organization } from '../../../gen/keyhold/org/v2/org_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { describeError, management, orgContext, orgs } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { can } from '../my-roles.js';
import { searchList } from '../paging.js';
import { tsText, type View } from '../view.js';

/** Fired on window when the console's organization changed (the header shows it). */
export const ORG_CHANGED_EVENT = 'keyhold:org-changed';

function switchTo(org: { id: string; name: string } | undefined): void {
  orgContext.set(org);
  window.dispatchEvent(new CustomEvent(ORG_CHANGED_EVENT));
  announce(org ? L.nowActsIn(org.name) : L.actsInOwnAgain);
  window.location.hash = '#/projects';
}

export async function orgsView(): Promise<View> {
  // Without the header: the caller's own org.
  const own = await management.getMyOrganization({}, { headers: { 'x-service-orgid': '' } }).catch(() => undefined);
  const current = orgContext.current;
  const currentId = current?.id ?? own?.id;

  const list = searchList<Organization>({
    id: 'orgs',
    noun: L.orgsNoun,
    searchLabel: L.searchOrgs,
    searchHint: L.nameHint,
    empty: L.noOrgs,
    async load({ text, offset, limit }) {
      const res = await orgs.listOrganizations({
        query: { offset: BigInt(offset), limit, asc: true },
        queries: text ? [{ query: { case: 'nameQuery', value: { name: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }] : [],
      });
      return { items: res.result, total: Number(res.details?.totalResult ?? 0) };
    },
    render: (items) =>
      h(
        'table',
        { class: 'list' },
        h('caption', { class: 'visually-hidden' }, L.navOrgs),
        h('thead', null, h('tr', null, [L.name, L.id, L.created, ''].map((c) => h('th', { scope: 'col' }, c || h('span', { class: 'visually-hidden' }, L.actions))))),
        h(
          'tbody',
          null,
          items.map((o) =>
            h(
              'tr',
              { 'data-org-id': o.id },
              h('th', { scope: 'row' }, o.name, o.id === own?.id ? h('span', { class: 'muted' }, L.yours) : null),
              h('td', { class: 'mono' }, o.id),
              h('td', null, tsText(o.details?.creationDate)),
              h(
                'td',
                null,
                o.id === currentId
                  ? h('strong', { 'data-testid': 'current-org' }, L.current)
                  : h('button', { type: 'button', class: 'secondary small', 'aria-label': L.switchTo(o.name), onclick: () => switchTo(o.id === own?.id ? undefined : { id: o.id, name: o.name }) }, L.switch),
              ),
            ),
          ),
        ),
      ),
  });
  await list.start();
  // Only an instance-wide role creates organizations (org.create): nobody else gets the form.
  const mayCreate = await can('org.create');

  const name = textField({ label: L.orgName, name: 'name', required: true, hint: L.oneTo200 });
  const create = h('button', { type: 'submit' }, L.createOrg);
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-org-title' }, h('h2', { id: 'new-org-title' }, L.newOrg), name.wrapper, h('div', { class: 'actions' }, create));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, L.creating, async () => {
      try {
        await orgs.addOrganization({ name: name.input.value });
        clearProblems(form);
        announce(L.orgCreated(name.input.value.trim()));
        name.input.value = '';
        await list.reload();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  return {
    title: L.navOrgs,
    node: h(
      'section',
      { 'aria-labelledby': 'orgs-title' },
      h('h1', { id: 'orgs-title', tabindex: '-1' }, L.navOrgs),
      h(
        'p',
        null,
        L.oneOrgAtATime,
        h('strong', { 'data-testid': 'acting-org' }, current?.name ?? own?.name ?? L.yoursPlain),
        '. ',
        h('a', { href: '#/organization' }, L.policiesAndMembers),
        '. ',
        current ? h('button', { type: 'button', class: 'link', onclick: () => switchTo(undefined) }, L.backToOwnOrg) : null,
      ),
      list.element,
      mayCreate ? form : null,
    ),
  };
}
