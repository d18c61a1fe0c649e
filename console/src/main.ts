// The Keyhold console: a hash-routed single page (#/projects, #/users/…)
// whose every API call goes through the generated Connect clients over gRPC-Web.
import { auth, describeError, orgContext, session, SIGNED_OUT_EVENT } from './api.js';
import { h } from './dom.js';
import { busy } from './forms.js';
import { finishLogin, startLogin } from './oidc.js';
import { currentPath, errorView, type View } from './view.js';
import { editAppView } from './views/edit-app.js';
import { eventsView } from './views/events.js';
import { newAppView } from './views/new-app.js';
import { ORG_CHANGED_EVENT, orgsView } from './views/orgs.js';
import { projectView } from './views/project.js';
import { projectsView } from './views/projects.js';
import { userView } from './views/user.js';
import { usersView } from './views/users.js';

const main = document.getElementById('main') as HTMLElement;
const sessionBox = document.getElementById('session') as HTMLElement;

const routes: Array<[RegExp, (params: string[]) => Promise<View>]> = [
  [/^\/projects$/, () => projectsView()],
  [/^\/projects\/([^/]+)$/, ([id]) => projectView(id!)],
  [/^\/projects\/([^/]+)\/apps\/new$/, ([id]) => newAppView(id!)],
  [/^\/projects\/([^/]+)\/apps\/([^/]+)\/edit$/, ([id, appId]) => editAppView(id!, appId!)],
  [/^\/users$/, () => usersView()],
  [/^\/users\/([^/]+)$/, ([id]) => userView(id!)],
  [/^\/orgs$/, () => orgsView()],
  [/^\/events$/, () => eventsView()],
];

function updateNav(path: string): void {
  document.querySelectorAll<HTMLAnchorElement>('nav a[data-section]').forEach((a) => {
    if (path.startsWith(`/${a.dataset.section}`)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
}

let me: { username: string } | undefined;
let signedOutNotice: string | undefined;

async function renderSession(): Promise<void> {
  if (!session.token) {
    me = undefined;
    sessionBox.replaceChildren();
    return;
  }
  if (!me) {
    try {
      const res = await auth.getMyUser({});
      me = { username: res.user?.username || res.user?.userId || 'unknown user' };
    } catch {
      return;
    }
  }
  const org = orgContext.current;
  sessionBox.replaceChildren(
    h('span', { class: 'who' }, 'Signed in as ', h('strong', null, me.username)),
    h('a', { href: '#/orgs', class: 'org', 'data-testid': 'header-org' }, org ? `in ${org.name}` : 'in your organization'),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          session.signOut();
          me = undefined;
          signedOutNotice = 'You are signed out. The token was removed from this tab.';
          void render(true);
        },
      },
      'Sign out',
    ),
  );
}

function signInView(): View {
  const error = h('p', { class: 'field-error', id: 'token-error', hidden: true });
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-required': 'true',
    'aria-describedby': 'token-hint',
    class: 'mono',
  });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card narrow' },
    h('div', { class: 'field' }, h('label', { for: 'token' }, 'Personal access token'), h('p', { class: 'hint', id: 'token-hint' }, 'The first administrator\u2019s token is in .keyhold/admin.pat (KEYHOLD_ADMIN_PAT_FILE).'), input, error),
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const token = input.value.trim();
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    if (!token) {
      error.textContent = 'Paste a personal access token first.';
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', 'token-hint token-error');
      input.focus();
      return;
    }
    await busy(button, 'Signing in\u2026', async () => {
      try {
        // Checked before it is kept: only a token Keyhold accepts goes to sessionStorage.
        const res = await auth.getMyUser({}, { headers: { authorization: `Bearer ${token}` } });
        session.signIn(token);
        me = { username: res.user?.username || res.user?.userId || 'unknown user' };
        signedOutNotice = undefined;
        input.value = '';
        await render(true);
      } catch (e) {
        const problem = describeError(e);
        error.textContent = problem.code === 16 ? 'Keyhold did not accept this token: it is unknown, expired or revoked.' : problem.message;
        error.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', 'token-hint token-error');
        input.focus();
      }
    });
  });
  const loginButton = h('button', { type: 'button', id: 'login' }, 'Log in with Keyhold');
  loginButton.addEventListener('click', () => {
    void busy(loginButton, 'Opening the login\u2026', () => startLogin());
  });
  const node = h(
    'section',
    { 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title', tabindex: '-1' }, 'Sign in'),
    signedOutNotice ? h('p', { class: 'notice', role: 'status' }, signedOutNotice) : null,
    h('div', { class: 'card narrow' }, h('p', null, 'Sign in with your Keyhold username and password on Keyhold\u2019s login page.'), h('div', { class: 'actions' }, loginButton)),
    h('h2', null, 'Or use a personal access token'),
    h(
      'p',
      null,
      'Paste a personal access token. The console keeps it in this tab\u2019s session storage only and sends it to Keyhold in the Authorization header; closing the tab forgets it.',
    ),
    form,
  );
  return { title: 'Sign in', node };
}

function notFoundView(path: string): View {
  return {
    title: 'Not found',
    node: h('section', null, h('h1', { tabindex: '-1' }, 'Page not found'), h('p', null, `The console has no page at ${path}. `, h('a', { href: '#/projects' }, 'Go to projects'), '.')),
  };
}

let renderSeq = 0;

async function render(focus: boolean): Promise<void> {
  const seq = ++renderSeq;
  const path = currentPath();
  updateNav(path);
  void renderSession();
  let view: View;
  if (!session.token) {
    view = signInView();
  } else {
    main.setAttribute('aria-busy', 'true');
    main.replaceChildren(h('p', { class: 'loading', role: 'status' }, 'Loading\u2026'));
    const match = routes.map(([re, make]) => [re.exec(path), make] as const).find(([m]) => m);
    try {
      view = match ? await match[1](match[0]!.slice(1).map(decodeURIComponent)) : notFoundView(path);
    } catch (e) {
      view = errorView(e);
    }
    main.removeAttribute('aria-busy');
  }
  if (seq !== renderSeq) return;
  main.replaceChildren(view.node);
  document.title = `${view.title} \u00b7 Keyhold console`;
  if (focus) main.querySelector<HTMLElement>('h1')?.focus();
  else if (!session.token) main.querySelector<HTMLInputElement>('#token')?.focus();
}

window.addEventListener('hashchange', () => void render(true));
window.addEventListener(ORG_CHANGED_EVENT, () => void renderSession());
window.addEventListener(SIGNED_OUT_EVENT, (ev) => {
  me = undefined;
  signedOutNotice = `Keyhold no longer accepts your token (${(ev as CustomEvent<string>).detail}). Sign in again.`;
  void render(true);
});
document.querySelector('.skip-link')?.addEventListener('click', (ev) => {
  ev.preventDefault();
  main.focus();
});
// Back from the login page: redeem the code before the first render.
void finishLogin()
  .then((answer) => {
    if (answer && 'token' in answer) {
      session.signIn(answer.token);
      me = undefined;
    } else if (answer) {
      signedOutNotice = answer.error;
    }
  })
  .catch(() => {
    signedOutNotice = 'The login did not complete: Keyhold could not be reached.';
  })
  .finally(() => {
    document.documentElement.dataset.ready = 'true';
    void render(false);
  });
