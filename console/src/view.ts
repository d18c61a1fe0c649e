// What a route renders: a page title and the node for <main> (with one <h1>,
// focusable, that the shell focuses after navigation).
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { describeError, orgContext } from './api.js';
import { formatDate, h } from './dom.js';
import { L } from './i18n.js';

export interface View {
  title: string;
  node: HTMLElement;
}

export function errorView(e: unknown): View {
  const problem = describeError(e);
  return {
    title: L.errorTitle,
    node: h(
      'section',
      null,
      h('h1', { tabindex: '-1' }, problem.code === 5 ? L.notFoundTitle : L.somethingWrong),
      h('p', { class: 'error', role: 'alert', 'data-reason': problem.reason }, problem.message),
      h('p', null, h('a', { href: '#/projects' }, L.backToProjects)),
      // A chosen organization the caller may no longer act in fails every page: offer the way back.
      orgContext.current
        ? h(
            'p',
            null,
            L.actsInOrg(orgContext.current.name),
            h('a', { href: '#/orgs' }, L.chooseAnotherOrg),
            '.',
          )
        : null,
    ),
  };
}

export function tsText(ts: Timestamp | undefined): string {
  return ts ? formatDate(timestampDate(ts)) : '\u2014';
}

/** `#/projects/<id>` with the id encoded. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

/** The route's path (`/users`) without the list state after `?`; no route: the projects. */
export function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash.split('?')[0]! : '/projects';
}
