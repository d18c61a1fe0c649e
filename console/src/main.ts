// The Keyhold console: a hash-routed single page (#/projects, #/users/…)
// whose every API call goes through the generated Connect clients over gRPC-Web.
import { auth, describeError, orgContext, session, SIGNED_OUT_EVENT } from './api.js';
import { append, h } from './dom.js';
import { busy } from './forms.js';
import { L, language, setLanguage } from './i18n.js';
import { hasNoRoles, me as whoAmI } from './my-roles.js';
import { finishLogin, finishLogout, forgetLoginTokens, signedInThroughLogin, signOutEverywhere, startLogin } from './oidc.js';
import { currentPath, errorView, type View } from './view.js';
import { editAppView } from './views/edit-app.js';
import { eventsView } from './views/events.js';
import { newAppView } from './views/new-app.js';
import { organizationView } from './views/organization.js';
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
  [/^\/organization$/, () => organizationView()],
  [/^\/events$/, () => eventsView()],
];

/** The shell's own words (index.html is static) in the current language. */
function translateShell(): void {
  document.documentElement.lang = language;
  const words: Record<string, string> = { projects: L.navProjects, users: L.navUsers, organization: L.navOrganization, orgs: L.navOrgs, events: L.navEvents };
  document.querySelectorAll<HTMLAnchorElement>('nav a[data-section]').forEach((a) => {
    a.textContent = words[a.dataset.section ?? ''] ?? a.textContent;
  });
  document.querySelector('nav[aria-label]')?.setAttribute('aria-label', L.mainNav);
  const skip = document.querySelector('.skip-link');
  if (skip) skip.textContent = L.skipLink;
  const suffix = document.querySelector('.brand .muted');
  if (suffix) suffix.textContent = L.brandSuffix;
}

function languageSwitch(): HTMLButtonElement {
  const other = language === 'de' ? 'en' : 'de';
  return h(
    'button',
    {
      type: 'button',
      class: 'link lang-switch',
      lang: other,
      'aria-label': L.languageSwitchLabel,
      'data-testid': 'language-switch',
      onclick: () => {
        setLanguage(other);
        translateShell();
        void render(true);
      },
    },
    L.languageSwitch,
  );
}

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
    sessionBox.replaceChildren(languageSwitch());
    return;
  }
  if (!me) {
    try {
      const res = await auth.getMyUser({});
      me = { username: res.user?.username || res.user?.userId || L.unknownUser };
    } catch {
      return;
    }
  }
  const who = me;
  const org = orgContext.current;
  // Without a role the organizations page would only refuse: no link to it.
  const noRoles = await hasNoRoles();
  sessionBox.replaceChildren();
  append(sessionBox, [
    h('span', { class: 'who' }, L.signedInAs, h('strong', null, who.username)),
    noRoles ? null : h('a', { href: '#/orgs', class: 'org', 'data-testid': 'header-org' }, org ? L.inOrg(org.name) : L.inYourOrg),
    signOutButton(),
    languageSwitch(),
  ]);
}

/**
 * "Sign out": signed in through Keyhold's login, the tokens are revoked and the
 * login session ends at the end-session endpoint (oidc.ts), which sends the
 * browser back here; a pasted token is only forgotten (it has no login session,
 * and revoking a PAT is its owner's decision, on the user's page).
 */
export function signOutButton(testId?: string): HTMLButtonElement {
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-testid': testId,
      onclick: async () => {
        const token = session.token;
        if (token && signedInThroughLogin()) {
          await busy(button, L.signingOut, () => signOutEverywhere(token, () => session.signOut()));
          return;
        }
        session.signOut();
        me = undefined;
        signedOutNotice = L.signedOutNotice;
        void render(true);
      },
    },
    L.signOut,
  );
  return button;
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
  const button = h('button', { type: 'submit' }, L.signIn);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card narrow' },
    h('div', { class: 'field' }, h('label', { for: 'token' }, L.patLabel), h('p', { class: 'hint', id: 'token-hint' }, L.patHint), input, error),
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const token = input.value.trim();
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    if (!token) {
      error.textContent = L.patMissing;
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', 'token-hint token-error');
      input.focus();
      return;
    }
    await busy(button, L.signingIn, async () => {
      try {
        // Checked before it is kept: only a token Keyhold accepts goes to sessionStorage.
        const res = await auth.getMyUser({}, { headers: { authorization: `Bearer ${token}` } });
        session.signIn(token);
        forgetLoginTokens();
        me = { username: res.user?.username || res.user?.userId || L.unknownUser };
        signedOutNotice = undefined;
        input.value = '';
        await render(true);
      } catch (e) {
        const problem = describeError(e);
        error.textContent = problem.code === 16 ? L.patNotAccepted : problem.message;
        error.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', 'token-hint token-error');
        input.focus();
      }
    });
  });
  const loginButton = h('button', { type: 'button', id: 'login' }, L.loginButton);
  loginButton.addEventListener('click', () => {
    void busy(loginButton, L.openingLogin, () => startLogin());
  });
  const node = h(
    'section',
    { 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title', tabindex: '-1' }, L.signIn),
    signedOutNotice ? h('p', { class: 'notice', role: 'status' }, signedOutNotice) : null,
    h('div', { class: 'card narrow' }, h('p', null, L.loginIntro), h('div', { class: 'actions' }, loginButton)),
    h('h2', null, L.orUsePat),
    h('p', null, L.patIntro),
    form,
  );
  return { title: L.signIn, node };
}

function notFoundView(path: string): View {
  return {
    title: L.notFoundTitle,
    node: h('section', null, h('h1', { tabindex: '-1' }, L.pageNotFound), h('p', null, L.noPageAt(path), h('a', { href: '#/projects' }, L.goToProjects), '.')),
  };
}

/**
 * A caller with no role anywhere: its own account instead of admin screens
 * that would only show refusals. The account page itself (password, keys,
 * sessions) is Keyhold's server-rendered /ui/account; this links there.
 */
function myAccountView(who: { username: string; name: string } | undefined): View {
  return {
    title: L.myAccountTitle,
    node: h(
      'section',
      { 'aria-labelledby': 'my-account-title', 'data-testid': 'my-account' },
      h('h1', { id: 'my-account-title', tabindex: '-1' }, L.myAccountTitle),
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, L.name),
        h('dd', { 'data-testid': 'my-name' }, who?.name || L.unknownUser),
        h('dt', null, L.loginName),
        h('dd', { class: 'mono', 'data-testid': 'my-login-name' }, who?.username || L.unknownUser),
      ),
      h('p', null, L.myAccountText),
      h('div', { class: 'actions' }, h('a', { class: 'button', href: '/ui/account', 'data-testid': 'account-page' }, L.openAccountPage), signOutButton('account-sign-out')),
      h('p', { class: 'hint' }, L.noRightsAsk),
    ),
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
    main.replaceChildren(h('p', { class: 'loading', role: 'status' }, L.loading));
    const match = routes.map(([re, make]) => [re.exec(path), make] as const).find(([m]) => m);
    try {
      if (await hasNoRoles()) {
        document.body.classList.add('no-rights');
        view = myAccountView(await whoAmI());
      } else {
        document.body.classList.remove('no-rights');
        view = match ? await match[1](match[0]!.slice(1).map(decodeURIComponent)) : notFoundView(path);
      }
    } catch (e) {
      view = errorView(e);
    }
    main.removeAttribute('aria-busy');
  }
  if (seq !== renderSeq) return;
  main.replaceChildren(view.node);
  document.title = `${view.title} \u00b7 ${L.titleSuffix}`;
  if (focus) main.querySelector<HTMLElement>('h1')?.focus();
  else if (!session.token) main.querySelector<HTMLInputElement>('#token')?.focus();
}

window.addEventListener('hashchange', () => void render(true));
window.addEventListener(ORG_CHANGED_EVENT, () => void renderSession());
window.addEventListener(SIGNED_OUT_EVENT, (ev) => {
  me = undefined;
  signedOutNotice = L.tokenRefused((ev as CustomEvent<string>).detail);
  void render(true);
});
document.querySelector('.skip-link')?.addEventListener('click', (ev) => {
  ev.preventDefault();
  main.focus();
});
translateShell();
// Back from the end-session endpoint: say so, with the address bar cleaned.
if (finishLogout()) signedOutNotice = L.signedOutEverywhere;
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
    signedOutNotice = L.loginUnreachable;
  })
  .finally(() => {
    document.documentElement.dataset.ready = 'true';
    void render(false);
  });
