// #/projects: the projects of the organization the console acts in, searched
// by name and paged by the server (ListProjects), and "New project".
import type { Project } from '../../../gen/keyhold/management/v1/management_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { searchList } from '../paging.js';
import { href, tsText, type View } from '../view.js';

function projectsTable(projects: readonly Project[]): HTMLElement {
  return h(
    'table',
    { class: 'list' },
    h('caption', { class: 'visually-hidden' }, 'Projects'),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'ID'), h('th', { scope: 'col' }, 'Created'))),
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
    noun: 'projects',
    searchLabel: 'Search projects by name',
    searchHint: 'Part of the name, any case. Oldest first.',
    empty: 'No projects yet. Create the first one below.',
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

  const name = textField({ label: 'Project name', name: 'name', required: true, hint: '1 to 200 characters.' });
  const button = h('button', { type: 'submit' }, 'Create project');
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-project-title' }, h('h2', { id: 'new-project-title' }, 'New project'), name.wrapper, h('div', { class: 'actions' }, button));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(button, 'Creating\u2026', async () => {
      try {
        const res = await management.addProject({ name: name.input.value });
        clearProblems(form);
        announce(`Project ${name.input.value.trim()} created.`);
        window.location.hash = href('projects', res.id);
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  return {
    title: 'Projects',
    node: h('section', { 'aria-labelledby': 'projects-title' }, h('h1', { id: 'projects-title', tabindex: '-1' }, 'Projects'), list.element, form),
  };
}
