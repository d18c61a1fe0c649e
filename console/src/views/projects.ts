// #/projects: the projects of the caller's organization, and "New project".
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { href, tsText, type View } from '../view.js';

export async function projectsView(): Promise<View> {
  const { result } = await management.listProjects({});
  const projects = [...result].sort((a, b) => a.name.localeCompare(b.name));

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

  const list = projects.length
    ? h(
        'table',
        { class: 'list', 'data-testid': 'projects' },
        h('caption', null, `Projects in your organization (${projects.length})`),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'ID'), h('th', { scope: 'col' }, 'Created'))),
        h(
          'tbody',
          null,
          projects.map((p) =>
            h('tr', null, h('th', { scope: 'row' }, h('a', { href: href('projects', p.id) }, p.name)), h('td', { class: 'mono' }, p.id), h('td', null, tsText(p.details?.creationDate))),
          ),
        ),
      )
    : h('p', { class: 'empty' }, 'No projects yet. Create the first one below.');

  return {
    title: 'Projects',
    node: h('section', { 'aria-labelledby': 'projects-title' }, h('h1', { id: 'projects-title', tabindex: '-1' }, 'Projects'), list, form),
  };
}
