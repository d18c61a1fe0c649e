// "New application" as a short guided sequence: what kind of app → how it
// signs in → its addresses → review (everything that will be sent, in plain
// words, the rarely needed fields under "Advanced") → create. One form whose
// steps are shown one at a time; the kind picks the sensible sign-in method
// and the hints for its addresses. The hints are only hints; the server is the
// truth: when it refuses, every step opens at once with each refusal next to
// its field. Field logic shared with the edit page lives in ./app-form.ts.
import { OIDCAppType, OIDCAuthMethodType, OIDCGrantType, OIDCResponseType, OIDCTokenType, OIDCVersion } from '../../gen/keyhold/management/v1/app_pb.js';
import { describeError } from './api.js';
import { checkbox, checkboxGroup, checkOrigin, LOOPBACK, selectField, type AppFormValues } from './app-form.js';
import { h, textField, uid } from './dom.js';
import { busy, clearProblems, mapSentIndices, rowsEditor, showProblems } from './forms.js';
import { L } from './i18n.js';
import { GRANT_TYPES, labelOf, RESPONSE_TYPES, shortLabelOf, TOKEN_TYPES } from './labels.js';
import { href } from './view.js';

export type Kind = 'web' | 'spa' | 'native' | 'machine';

interface KindInfo {
  kind: Kind;
  appType?: OIDCAppType;
  title(): string;
  hint(): string;
  /** The sign-in methods in the order offered, the sensible one first (pre-selected). */
  methods: OIDCAuthMethodType[];
  uriHint(): string;
}

const M = OIDCAuthMethodType;

const KINDS: KindInfo[] = [
  {
    kind: 'web',
    appType: OIDCAppType.OIDC_APP_TYPE_WEB,
    title: () => L.kindWeb,
    hint: () => L.kindWebHint,
    methods: [M.OIDC_AUTH_METHOD_TYPE_BASIC, M.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, M.OIDC_AUTH_METHOD_TYPE_POST, M.OIDC_AUTH_METHOD_TYPE_NONE],
    uriHint: () => L.uriHintWeb,
  },
  {
    kind: 'spa',
    appType: OIDCAppType.OIDC_APP_TYPE_USER_AGENT,
    title: () => L.kindSpa,
    hint: () => L.kindSpaHint,
    methods: [M.OIDC_AUTH_METHOD_TYPE_NONE, M.OIDC_AUTH_METHOD_TYPE_BASIC, M.OIDC_AUTH_METHOD_TYPE_POST, M.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT],
    uriHint: () => L.uriHintSpa,
  },
  {
    kind: 'native',
    appType: OIDCAppType.OIDC_APP_TYPE_NATIVE,
    title: () => L.kindNative,
    hint: () => L.kindNativeHint,
    methods: [M.OIDC_AUTH_METHOD_TYPE_NONE, M.OIDC_AUTH_METHOD_TYPE_BASIC, M.OIDC_AUTH_METHOD_TYPE_POST, M.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT],
    uriHint: () => L.uriHintNative,
  },
  { kind: 'machine', title: () => L.kindMachine, hint: () => L.kindMachineHint, methods: [], uriHint: () => '' },
];

/** A sign-in method in plain words, and what it means for the developer. */
export function methodWords(m: OIDCAuthMethodType): { title: string; hint: string } {
  switch (m) {
    case M.OIDC_AUTH_METHOD_TYPE_BASIC:
      return { title: L.methodBasic, hint: L.methodBasicHint };
    case M.OIDC_AUTH_METHOD_TYPE_POST:
      return { title: L.methodPost, hint: L.methodPostHint };
    case M.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT:
      return { title: L.methodJwt, hint: L.methodJwtHint };
    default:
      return { title: L.methodNone, hint: L.methodNoneHint };
  }
}

/** The hint a redirect URI gets as it is typed, for the kind of app: the compliance report's rules (src/domain/oidc/compliance.ts), which decide. */
function uriAdvice(value: string, kind: Kind): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return L.notAbsoluteUri;
  }
  if (value.includes('#')) return L.uriFragment;
  const loopback = LOOPBACK.test(url.hostname);
  if (kind === 'native') {
    if (url.protocol === 'http:' && !loopback) return L.nativeHttpNotLoopback;
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return L.webCustomScheme;
  if (url.protocol === 'http:' && kind === 'spa') return L.spaNeedsHttps;
  if (url.protocol === 'http:' && !loopback) return L.webNeedsHttps;
  return undefined;
}

function radio(name: string, value: string, title: string, hint: string, checked: boolean): { node: HTMLElement; input: HTMLInputElement } {
  const id = uid(`r-${name}`);
  const hintId = `${id}-hint`;
  const input = h('input', { type: 'radio', id, name, value, checked, 'aria-describedby': hintId });
  return { input, node: h('div', { class: 'check choice' }, input, h('label', { for: id }, title), h('p', { class: 'hint', id: hintId }, hint)) };
}

const STEPS = ['kind', 'method', 'uris', 'review'] as const;
type Step = (typeof STEPS)[number];

export interface WizardOptions {
  projectId: string;
  labelledBy: string;
  /** Sends the values; a thrown error is shown on the form. */
  create(values: AppFormValues): Promise<void>;
}

export function appWizard(opts: WizardOptions): HTMLFormElement {
  let kind: Kind | undefined;
  const info = () => KINDS.find((k) => k.kind === kind);

  // 1. What kind of app.
  const name = textField({ label: L.name, name: 'name', required: true, hint: L.appNameHint });
  const kindRadios = KINDS.map((k) => radio('appKind', k.kind, k.title(), k.hint(), false));
  const machineAdvice = h(
    'div',
    { class: 'notice', hidden: true, 'data-testid': 'machine-advice' },
    h('p', null, L.machineAdvice),
    h('p', null, h('a', { href: '#/users' }, L.createMachineUserLink)),
  );
  const kindStep = h(
    'section',
    { 'data-step': 'kind' },
    h('h2', { tabindex: '-1' }, L.stepKindTitle),
    name.wrapper,
    h('fieldset', { class: 'choices', 'data-field': 'appType' }, h('legend', null, L.kindQuestion), kindRadios.map((r) => r.node)),
    machineAdvice,
  );

  // 2. How it signs in.
  const methodBox = h('div');
  const methodAdvice = h('p', { class: 'hint advice', 'aria-live': 'polite' });
  let methodInputs: { input: HTMLInputElement; method: OIDCAuthMethodType }[] = [];
  const method = () => Number(methodInputs.find((m) => m.input.checked)?.method ?? M.OIDC_AUTH_METHOD_TYPE_NONE) as OIDCAuthMethodType;
  const adviseMethod = () => {
    methodAdvice.textContent = (kind === 'spa' || kind === 'native') && method() !== M.OIDC_AUTH_METHOD_TYPE_NONE ? L.nativeNoSecret : '';
  };
  const offerMethods = () => {
    const k = info();
    const offered = (k?.methods ?? []).map((m, i) => {
      const words = methodWords(m);
      const r = radio('authMethodType', String(m), i === 0 ? L.recommended(words.title) : words.title, words.hint, i === 0);
      r.input.addEventListener('change', adviseMethod);
      return { input: r.input, method: m, node: r.node };
    });
    methodInputs = offered;
    methodBox.replaceChildren(h('fieldset', { class: 'choices', 'data-field': 'authMethodType' }, h('legend', null, L.methodQuestion), offered.map((o) => o.node)));
    adviseMethod();
  };
  const methodStep = h('section', { 'data-step': 'method', hidden: true }, h('h2', { tabindex: '-1' }, L.stepMethodTitle), methodBox, methodAdvice);

  // 3. Its addresses.
  const devMode = checkbox(L.devMode, 'devMode', L.devModeHint);
  const check = (value: string) => (kind ? uriAdvice(value, kind) : undefined);
  const uriHint = h('p', { class: 'hint', 'data-testid': 'uri-hint' });
  const redirectUris = rowsEditor({ field: 'redirectUris', legend: L.redirectUris, itemLabel: L.redirectUri, addLabel: L.addRedirectUri, hint: L.redirectUrisPlain, initial: [''], check });
  const postLogout = rowsEditor({ field: 'postLogoutRedirectUris', legend: L.postLogoutUris, itemLabel: L.postLogoutUri, addLabel: L.addPostLogoutUri, hint: L.postLogoutPlain, initial: [], check });
  const origins = rowsEditor({ field: 'additionalOrigins', legend: L.additionalOrigins, itemLabel: L.origin, addLabel: L.addOrigin, hint: L.originsHint, initial: [], check: checkOrigin });
  const urisStep = h('section', { 'data-step': 'uris', hidden: true }, h('h2', { tabindex: '-1' }, L.stepUrisTitle), uriHint, redirectUris.element, postLogout.element, origins.element, devMode.element);

  // 4. Review, with "Advanced".
  const responseTypes = checkboxGroup(L.responseTypes, 'responseTypes', RESPONSE_TYPES, [OIDCResponseType.OIDC_RESPONSE_TYPE_CODE], L.responseTypesHint);
  const grantTypes = checkboxGroup(L.grantTypes, 'grantTypes', GRANT_TYPES, [OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE]);
  const tokenType = selectField(L.accessTokenType, 'accessTokenType', TOKEN_TYPES, undefined, OIDCTokenType.OIDC_TOKEN_TYPE_BEARER);
  const accessRoles = checkbox(L.addRolesAccess, 'accessTokenRoleAssertion', L.jwtOnly);
  const idRoles = checkbox(L.addRolesId, 'idTokenRoleAssertion');
  const idUserinfo = checkbox(L.addUserinfo, 'idTokenUserinfoAssertion', L.deviatesSpec);
  const clockSkew = textField({ label: L.clockSkewSeconds, name: 'clockSkew', type: 'number', value: '0', hint: L.clockSkewHint, attrs: { min: '0', max: '5', step: 'any', inputmode: 'decimal' } });
  const skipNative = checkbox(L.skipNative, 'skipNativeAppSuccessPage');
  const advanced = h(
    'details',
    { class: 'advanced', 'data-testid': 'advanced' },
    h('summary', null, L.advanced),
    h('p', { class: 'hint' }, L.advancedHint),
    responseTypes.element,
    grantTypes.element,
    tokenType.wrapper,
    accessRoles.element,
    idRoles.element,
    idUserinfo.element,
    clockSkew.wrapper,
    skipNative.element,
  );
  const summary = h('dl', { class: 'facts review', 'data-testid': 'review' });
  const reviewStep = h('section', { 'data-step': 'review', hidden: true }, h('h2', { tabindex: '-1' }, L.stepReviewTitle), h('p', null, L.reviewIntro), summary, advanced);

  const values = (): AppFormValues & { rows: { redirect: number[]; logout: number[]; origins: number[] } } => {
    const r = redirectUris.values();
    const l = postLogout.values();
    const o = origins.values();
    const v: AppFormValues & { rows: { redirect: number[]; logout: number[]; origins: number[] } } = {
      name: name.input.value,
      appType: info()?.appType ?? OIDCAppType.OIDC_APP_TYPE_WEB,
      authMethodType: method(),
      responseTypes: responseTypes.values(),
      grantTypes: grantTypes.values(),
      redirectUris: r.values,
      postLogoutRedirectUris: l.values,
      additionalOrigins: o.values,
      version: OIDCVersion.OIDC_VERSION_1_0,
      accessTokenType: tokenType.value(),
      accessTokenRoleAssertion: accessRoles.input.checked,
      idTokenRoleAssertion: idRoles.input.checked,
      idTokenUserinfoAssertion: idUserinfo.input.checked,
      devMode: devMode.input.checked,
      skipNativeAppSuccessPage: skipNative.input.checked,
      rows: { redirect: r.rows, logout: l.rows, origins: o.rows },
    };
    const skew = clockSkew.input.value.trim();
    if (skew !== '') {
      const secs = Number(skew);
      if (Number.isFinite(secs)) {
        const whole = Math.trunc(secs);
        v.clockSkew = { seconds: BigInt(whole), nanos: Math.round((secs - whole) * 1e9) };
      }
    }
    return v;
  };

  const yesNo = (b: boolean) => (b ? L.yes : L.no);
  const uriList = (list: string[], none: string) => (list.length ? h('ul', { class: 'plain mono' }, list.map((u) => h('li', null, u))) : h('span', { class: 'muted' }, none));
  const review = () => {
    const v = values();
    const row = (term: string, value: HTMLElement | string, testId?: string) => [h('dt', null, term), h('dd', { 'data-testid': testId }, value)];
    summary.replaceChildren(
      ...row(L.name, v.name.trim(), 'review-name'),
      ...row(L.reviewKind, info()?.title() ?? '', 'review-kind'),
      ...row(L.reviewMethod, methodWords(v.authMethodType).title, 'review-method'),
      ...row(L.reviewRedirects, uriList(v.redirectUris, L.none)),
      ...row(L.reviewLogout, uriList(v.postLogoutRedirectUris, L.reviewNoLogout)),
      ...row(L.additionalOrigins, uriList(v.additionalOrigins, L.none)),
      ...row(L.devMode, yesNo(v.devMode)),
      ...row(L.responseTypes, v.responseTypes.map((t) => shortLabelOf(RESPONSE_TYPES, t)).join(', ') || L.none),
      ...row(L.grantTypes, v.grantTypes.map((t) => shortLabelOf(GRANT_TYPES, t)).join(', ') || L.none),
      ...row(L.accessTokenType, labelOf(TOKEN_TYPES, v.accessTokenType)),
      ...row(L.reviewRoles, [v.accessTokenRoleAssertion ? L.rolesInAccessToken : '', v.idTokenRoleAssertion ? L.rolesInIdToken : ''].filter(Boolean).join(', ') || L.no),
      ...row(L.userinfoInIdToken, yesNo(v.idTokenUserinfoAssertion)),
      ...row(L.clockSkew, `${clockSkew.input.value.trim() || '0'} s`),
      ...(kind === 'native' ? row(L.skipNativeShort, yesNo(v.skipNativeAppSuccessPage)) : []),
    );
  };

  // Steps and their navigation.
  const sections: Record<Step, HTMLElement> = { kind: kindStep, method: methodStep, uris: urisStep, review: reviewStep };
  const stepTitles = (): Record<Step, string> => ({ kind: L.stepKind, method: L.stepMethod, uris: L.stepUris, review: L.stepReview });
  const progress = h('ol', { class: 'steps', 'aria-label': L.stepsLabel });
  let current: Step = 'kind';
  let allOpen = false;
  const back = h('button', { type: 'button', class: 'secondary', 'data-testid': 'step-back' }, L.back);
  const next = h('button', { type: 'button', 'data-testid': 'step-next' }, L.next);
  const create = h('button', { type: 'submit' }, L.createApplication);
  const show = (step: Step, focus = true) => {
    current = step;
    const at = STEPS.indexOf(step);
    progress.replaceChildren(
      ...STEPS.map((s, i) => h('li', { class: i < at ? 'done' : i === at ? 'current' : undefined, 'aria-current': i === at ? 'step' : undefined }, stepTitles()[s])),
    );
    for (const s of STEPS) sections[s].hidden = !allOpen && s !== step;
    back.hidden = allOpen || at === 0;
    next.hidden = allOpen || step === 'review' || (step === 'kind' && kind === 'machine');
    create.hidden = !allOpen && step !== 'review';
    if (step === 'review' || allOpen) review();
    if (focus && !allOpen) sections[step].querySelector<HTMLElement>('h2')?.focus();
  };

  const onKind = () => {
    const chosen = kindRadios.find((r) => r.input.checked)?.input.value as Kind | undefined;
    if (chosen === kind) return;
    kind = chosen;
    machineAdvice.hidden = kind !== 'machine';
    uriHint.textContent = info()?.uriHint() ?? '';
    // The typed addresses' hints follow the kind.
    form.querySelectorAll<HTMLInputElement>('.rows-editor input').forEach((i) => i.dispatchEvent(new Event('input')));
    // Each kind starts from its sensible sign-in method.
    offerMethods();
    show(current, false);
  };
  kindRadios.forEach((r) => r.input.addEventListener('change', onKind));

  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card app-form wizard', 'aria-labelledby': opts.labelledBy, 'data-testid': 'app-wizard' },
    progress,
    kindStep,
    methodStep,
    urisStep,
    reviewStep,
    h('div', { class: 'actions' }, back, next, create, h('a', { href: href('projects', opts.projectId), class: 'button secondary' }, L.cancel)),
  );
  form.addEventListener('change', () => {
    if (current === 'review' || allOpen) review();
  });

  /** What must be there before the next step: said at the field, as the server's refusals are. */
  const missing = (step: Step): { field: string; description: string }[] => {
    if (step === 'kind') {
      const out = [];
      if (!name.input.value.trim()) out.push({ field: 'name', description: L.appNameMissing });
      if (!kind) out.push({ field: 'appType', description: L.kindMissing });
      return out;
    }
    if (step === 'uris' && redirectUris.values().values.length === 0) return [{ field: 'redirectUris', description: L.redirectMissing }];
    return [];
  };
  next.addEventListener('click', () => {
    const problems = missing(current);
    if (problems.length) {
      showProblems(form, { code: 3, message: problems[0]!.description, violations: problems });
      return;
    }
    clearProblems(form);
    show(STEPS[STEPS.indexOf(current) + 1]!);
  });
  back.addEventListener('click', () => {
    clearProblems(form);
    show(STEPS[STEPS.indexOf(current) - 1]!);
  });

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (current !== 'review' && !allOpen) return;
    const v = values();
    const { rows, ...sent } = v;
    await busy(create, L.creating, async () => {
      try {
        await opts.create(sent);
        clearProblems(form);
      } catch (e) {
        let problem = describeError(e);
        problem = mapSentIndices(problem, 'redirectUris', rows.redirect, L.redirectUri);
        problem = mapSentIndices(problem, 'postLogoutRedirectUris', rows.logout, L.postLogoutUri);
        problem = mapSentIndices(problem, 'additionalOrigins', rows.origins, L.origin);
        // Every step at once, so each refusal stands next to its field and can be fixed there.
        allOpen = true;
        form.classList.add('all-steps');
        show(current, false);
        showProblems(form, problem);
        if (advanced.querySelector('.field-error, .invalid')) advanced.open = true;
      }
    });
  });

  show('kind', false);
  return form;
}
