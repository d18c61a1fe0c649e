// #/projects: the projects of the organization the console acts in, searched
// by name and paged by the server (ListProjects), and "New project".
import type { Project } from '../../../gen/keyhold/management/v1/management_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { can } from '../my-roles.js';
import { searchList } from '../paging.js';
import { href, tsText, type View } from '../view.js';

function projectsTable(projects: readonly Project[]): HTMLElement {
  return h(
    'table',
    { class: 'list' },
    h('caption', { class: 'visually-hidden' }, L.projectsTitle),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.name), h('th', { scope: 'col' }, L.id), h('th', { scope: 'col' }, L.created))),
    h(
      'tbody',
      null,
      projects.map((p) => h('tr', null, h('th', { scope: 'row' }, h('a', { href: href('projects', p.id) }, p.name)), h('td', { class: 'mono' }, p.id), h('td', null, tsText(p.details?.creationDate)))),
    ),
  );
}

export async function projectsView(): Promise<View> {
  const list = searchList<Project>({
    id: 'projects',
    noun: L.projectsNoun,
    searchLabel: L.searchProjects,
    searchHint: L.nameHint,
    empty: L.noProjects,
    async load({ text, offset, limit }) {
      const res = await management.listProjects({
        query: { offset: BigInt(offset), limit, asc: true },
        queries: text ? [{ query: { case: 'nameQuery', value: { name: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }] : [],
      });
      return { items: res.result, total: Number(res.details?.totalResult ?? 0) };
    },
    render: projectsTable,
  });
  await list.start();
  const mayCreate = await can('project.write');

  const name = textField({ label: L.projectName, name: 'name', required: true, hint: L.oneTo200 });
  const button = h('button', { type: 'submit' }, L.createProject);
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-project-title' }, h('h2', { id: 'new-project-title' }, L.newProject), name.wrapper, h('div', { class: 'actions' }, button));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(button, L.creating, async () => {
      try {
        const res = await management.addProject({ name: name.input.value });
        clearProblems(form);
        announce(L.projectCreated(name.input.value.trim()));
        window.location.hash = href('projects', res.id);
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  return {
    title: L.projectsTitle,
    node: h('section', { 'aria-labelledby': 'projects-title' }, h('h1', { id: 'projects-title', tabindex: '-1' }, L.projectsTitle), list.element, mayCreate ? form : null),
  };
}
