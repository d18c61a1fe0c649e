// The login's routes under /ui/login: GET /<uid> shows the page of the
// sign-in's state, POST /<uid>/<action> takes a step's form, and the key
// steps' script by its content-hashed name. Server-rendered; works without
// JavaScript (but for the key ceremonies).
//
// One loop: load the sign-in and its state (ports.ts) → the step of the state
// (steps.ts) renders it, or says what its form's answer came to (an outcome)
// → flow.ts `next` says where that goes → saved (one writer: `apply`) → a
// `done` state ends the sign-in.
//
// CSRF: every step needs the interaction cookie oidc-provider set (SameSite=Lax,
// so not sent on a cross-site POST; the interaction is not found without it)
// and a form token bound to the interaction (HMAC under the cookie key).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderMessage } from '../domain/errors/reasons.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import type { LoginObserver } from './observer.js';
import { knownBrowsers } from './known-browser.js';
import { loginUrl } from './login-url.js';
import { fieldOf, formTokens, parseForms } from './form-token.js';
import { next, type LoginOutcome } from './flow.js';
import { BASE, errorBody, nativeDoneBody } from './pages/forms.js';
import { idpCallbackUrl } from '../domain/idp/callback.js';
import { keyStepScript } from './pages/key-script.js';
import { escapeHtml, LOGIN_HEADERS, page, SCRIPT_CSP, t, unavailablePage } from './pages/layout.js';
import type { InteractionPort, LoginInteraction, LoginPorts } from './ports.js';
import type { LoginState } from './state.js';
import { stepOf } from './steps.js';
import { registerResetRoutes } from './reset-routes.js';
import { registerVerifyEmailRoutes } from './verify-email-routes.js';
import { providerButtons } from './steps/external.js';
import { bindBrowser, isBoundBrowser } from './external-binding.js';
import { decideSecondFactor } from './steps/second-factor.js';
import type { Page, Problem, StepContext } from './steps/step.js';

/** A sign-in's uid or a provider's id in a callback's path or state (what Keyhold makes them of). */
const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** How many states one request may pass through while rendering (a page that moves the state on, e.g. a consent nobody needs to see). */
const MAX_MOVES = 4;

export interface LoginRoutesDeps {
  interactions: InteractionPort;
  ports: LoginPorts;
  cookieKey: () => string;
  issuer: () => string;
  /** Second factors' outcomes (metrics.ts); the password step's are the password-check command's to report. */
  observer?: Pick<LoginObserver, 'secondFactor'>;
  /** Whether an error means the database cannot answer now (the server knows its stores' errors), and the Retry-After it answers then. */
  unavailable: { is(err: unknown): boolean; retryAfterSeconds: number };
  now?: () => number;
}

/** The page's language: the app's `ui_locales` when Keyhold speaks one of them, else Accept-Language. */
function languageOf(req: FastifyRequest, interaction: LoginInteraction | undefined): Language {
  const uiLocales = interaction?.uiLocales ?? '';
  if (uiLocales) {
    const picked = negotiateLanguage(uiLocales.split(' ').filter(Boolean).join(','));
    if (uiLocales.split(' ').some((l: string) => l.toLowerCase().split('-')[0] === picked)) return picked;
  }
  return negotiateLanguage(req.headers['accept-language']);
}

/** Whether this GET asks for the recovery form: the key page's "Use a recovery code" link, an input that moves the state. */
const wantsRecovery = (req: FastifyRequest): boolean => (req.query as Record<string, unknown> | undefined)?.recovery === '1';

/** What a sign-in refused for an unverified registration says, by what became of the new link (none: the reason alone). */
const UNVERIFIED_TEXT = { mailed: 'unverifiedMailed', wait: 'unverifiedWait', off: undefined } as const;

export function registerLoginRoutes(fastify: FastifyInstance, deps: LoginRoutesDeps): void {
  const { ports, interactions } = deps;
  const now = deps.now ?? Date.now;
  const tokens = formTokens(deps.cookieKey, 'keyhold login form');
  const formToken = tokens.tokenOf;
  const tokenOk = tokens.ok;
  const browsers = knownBrowsers({ cookieKey: deps.cookieKey, secure: () => interactions.secure() });

  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(body);
  const send = (reply: FastifyReply, lang: Language, shown: Page) => {
    reply.code(shown.status ?? 200).headers(LOGIN_HEADERS);
    // A page with a ceremony loads Keyhold's own script (and only that).
    if (shown.script) reply.header('content-security-policy', SCRIPT_CSP);
    return reply.type('text/html; charset=utf-8').send(page(lang, shown.title, shown.body, shown.script));
  };
  const expired = (reply: FastifyReply, lang: Language) => html(reply, page(lang, t(lang, 'errorTitle'), errorBody(lang, t(lang, 'formExpired'))), 400);
  /** The login's page as the state now is (303 to its GET). */
  const again = (reply: FastifyReply, uid: string) => reply.code(303).header('location', loginUrl(deps.issuer(), uid)).headers(LOGIN_HEADERS).send();

  /** One request's view of a sign-in: its state as this request moved it, and what its steps may use. */
  function contextOf(req: FastifyRequest, interaction: LoginInteraction, lang: Language) {
    const held = { state: interaction.state };
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    const ctx: StepContext = {
      lang,
      interaction,
      ports,
      hidden: `<input type="hidden" name="form_token" value="${escapeHtml(formToken(interaction.uid))}">`,
      body,
      field: (name) => fieldOf(body, name),
      guessClient: (userId) => ({ address: req.ip ?? '', knownBrowser: userId ? browsers.idFor(req, userId) : undefined }),
      knownTo: (userId) => Boolean(userId && browsers.idFor(req, userId)),
      async apply(outcome: LoginOutcome, opts = {}) {
        const from = held.state;
        const to = next(from, outcome);
        if (to === from) return to;
        // A finished login is stored as done before it is recorded, and only while the stored state is
        // still the one it finishes: of two requests finishing one sign-in (a form posted twice), one
        // records the login and ends it; the other finds it moved on. Read back, a done state is none.
        if (to.step === 'done' && to.end.kind === 'login') {
          if (!(await interactions.saveIfStill(interaction, from, to))) return undefined;
        } else if (to.step !== 'done' && to.step !== 'consent') {
          // The consent's decision is ended at once, never stored; the consent prompt's state is the provider's own.
          if (opts.ifStill) {
            if (!(await interactions.saveIfStill(interaction, from, to))) return undefined;
          } else {
            await interactions.save(interaction, to);
          }
        }
        held.state = to;
        return to;
      },
      secondFactor: (kind, outcome) => deps.observer?.secondFactor(kind, outcome),
      issuer: deps.issuer(),
      now,
    };
    return { ctx, held };
  }

  type Held = ReturnType<typeof contextOf>;

  /** The page of the current state; a state a page moves on (or a done one) is followed. */
  async function show(req: FastifyRequest, reply: FastifyReply, { ctx, held }: Held, problem?: Problem): Promise<void> {
    for (let moves = 0; moves < MAX_MOVES; moves++) {
      const state = held.state;
      if (state.step === 'done') return end(req, reply, { ctx, held }, state);
      const shown = await stepOf(state).render(ctx, state, problem);
      if ('page' in shown) {
        // The first page offers the providers the app's org allows ("Continue with …").
        const first = state.step === 'identify' || (state.step === 'passkey' && !state.loginName);
        const buttons = first ? providerButtons(ctx.lang, ctx.interaction.uid, ctx.hidden, await ports.offeredProviders(await ports.orgOfSignIn(ctx.interaction))) : '';
        // A link waiting on this sign-in: every page of it says what signing in will do.
        const waiting = state.link ? `<p class="note" role="status" data-link-pending>${t(ctx.lang, 'externalLinkPending', { name: state.link.name })}</p>` : '';
        return void (await send(reply, ctx.lang, { ...shown.page, body: waiting + shown.page.body + buttons }));
      }
      if ('again' in shown) return void (await again(reply, ctx.interaction.uid));
      // Another request of this sign-in moved it first (it finished the login): its page as it is now.
      if (!(await ctx.apply(shown.outcome))) return void (await again(reply, ctx.interaction.uid));
    }
    return void (await again(reply, ctx.interaction.uid));
  }

  /** Ends the sign-in as a done state says: a login (recorded first), or the consent's decision. */
  async function end(req: FastifyRequest, reply: FastifyReply, held: Held, state: Extract<LoginState, { step: 'done' }>): Promise<void> {
    const { ctx } = held;
    const { interaction, lang } = ctx;
    let ended;
    if (state.end.kind === 'login') {
      const { userId, amr } = state.end;
      // The user decider refuses a user no longer active (locked, deactivated or removed while this login ran).
      const logged = await ports.loggedIn(userId, interaction.clientId, req.ip ?? '', amr);
      if (logged !== true) {
        await ctx.apply({ kind: 'loginRefused' });
        // A registered address not verified yet: said to whoever passed the credential (it proved the account is theirs).
        if (logged === 'unverified') {
          // They proved the account is theirs: a new link to the address (within the mail limit), so no one is stuck.
          const said = UNVERIFIED_TEXT[await ports.mailAddressCode(userId, lang)];
          return show(req, reply, held, { text: said ? t(lang, said) : escapeHtml(renderMessage('REGISTRATION_UNVERIFIED', lang, {})) });
        }
        return show(req, reply, held, { text: t(lang, ctx.knownTo(userId) ? 'locked' : 'unknownOrWrong') });
      }
      // Signed in with the account's own factors while an identity of another provider waited: linked now.
      if (state.end.link && isBoundBrowser(req, interactions.secure(), state.end.link.binding)) await ports.linkPending(state.end.link, userId);
      browsers.remember(req, reply, userId);
      ended = await interactions.finishLogin(interaction, { accountId: userId, amr });
    } else {
      ended = state.end.allowed ? await interactions.grantConsent(interaction) : await interactions.denyConsent(interaction);
    }
    // The sign-in ended meanwhile (another request resumed it, or it expired): nothing to go back with.
    if (!ended) return expired(reply, lang);
    if (ended.nativeDone) return void (await html(reply, page(lang, t(lang, 'title'), nativeDoneBody(lang, ended.returnTo))));
    await reply.code(303).header('location', ended.returnTo).headers(LOGIN_HEADERS).send();
  }

  /**
   * The callback URI registered at the upstream: one per provider (from KEYHOLD_ISSUER, never a request
   * header), so an answer arrives at the URI of the provider that gave it. A sign-in with one provider
   * refuses an answer at another's URI before any code is sent anywhere: an upstream that sends the
   * person on to an honest provider cannot have that provider's code delivered to itself (mix-up).
   */
  const callbackUri = (idpId: string) => idpCallbackUrl(deps.issuer(), idpId);

  /** "Continue with …": the exchange started, what its callback must match kept in the sign-in, the browser sent to the upstream. */
  async function startExternal(req: FastifyRequest, reply: FastifyReply, held: Held): Promise<void> {
    const { ctx } = held;
    const state = held.held.state;
    if (state.step === 'consent' || state.step === 'done') return void (await again(reply, ctx.interaction.uid));
    const idpId = ctx.field('idp');
    // The state names the sign-in (the callback's one fixed URI finds it by that) and is unguessable.
    const value = `${ctx.interaction.uid}.${randomBytes(24).toString('base64url')}`;
    const started = idpId ? await ports.startExternal(idpId, await ports.orgOfSignIn(ctx.interaction), value, callbackUri(idpId)) : undefined;
    if (!started) return show(req, reply, held, { text: t(ctx.lang, 'externalUnavailable', { name: '' }) });
    const binding = bindBrowser(reply, interactions.secure());
    await ctx.apply({ kind: 'externalStarted', idpId, state: value, nonce: started.nonce, verifier: started.verifier, at: now(), binding });
    await reply.code(303).header('location', started.url).headers(LOGIN_HEADERS).send();
  }

  void fastify.register(async (app) => {
    // While the database cannot answer, every step answers a page saying so (503, Retry-After) in the
    // user's language; other errors go on to the server's handler.
    app.setErrorHandler((err, req, reply) => {
      if (!deps.unavailable.is(err)) throw err;
      return html(reply.header('retry-after', String(deps.unavailable.retryAfterSeconds)), unavailablePage(negotiateLanguage(req.headers['accept-language'])), 503);
    });
    parseForms(app);

    // The forgotten password's link (reset-routes.ts): a page of its own, outside any sign-in.
    registerResetRoutes(app, ports);
    // The address-verification link (verify-email-routes.ts): likewise outside any sign-in.
    registerVerifyEmailRoutes(app, ports);

    // The key steps' script, by its content-hashed name (pages/key-script.ts).
    app.get<{ Params: { file: string } }>(`${BASE}/assets/:file`, async (req, reply) => {
      const script = keyStepScript();
      if (`${BASE}/assets/${req.params.file}` !== script.path) return reply.code(404).headers(LOGIN_HEADERS).send();
      return reply
        .code(200)
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(script.body);
    });

    // A provider's callback: one URI per provider for every sign-in, which names its sign-in in `state`; on to that
    // sign-in's own path with the provider it came from, where the browser sends the sign-in's cookie (the address
    // from KEYHOLD_ISSUER, the query as it came).
    app.get<{ Params: { idpId: string } }>(`${BASE}/idp/:idpId/callback`, async (req, reply) => {
      const query = new URL(req.url, 'http://callback').search;
      const state = (req.query as Record<string, unknown> | undefined)?.state;
      const uid = typeof state === 'string' ? state.split('.')[0] : '';
      const { idpId } = req.params;
      if (!uid || !ID.test(uid) || !ID.test(idpId)) return expired(reply, negotiateLanguage(req.headers['accept-language']));
      return reply.code(303).header('location', `${deps.issuer()}${BASE}/${uid}/idp/${idpId}${query}`).headers(LOGIN_HEADERS).send();
    });

    // The upstream's answer at its sign-in: matched with what was kept, spent at once (only while the sign-in is still
    // where this request read it: a replay or a concurrent twin finds it spent), then exchanged and decided.
    app.get<{ Params: { uid: string; idpId: string } }>(`${BASE}/:uid/idp/:idpId`, async (req, reply) => {
      const interaction = await interactions.load(req.raw, reply.raw, req.params.uid);
      const lang = languageOf(req, interaction);
      if (!interaction || interaction.foreign) return expired(reply, lang);
      const held = contextOf(req, interaction, lang);
      const kept = held.held.state;
      const query = new URL(req.url, 'http://callback').search;
      if (kept.step !== 'external' || (req.query as Record<string, unknown> | undefined)?.state !== kept.state) return expired(reply, lang);
      // An answer at another provider's URI: refused, and the sign-in's own provider is not asked anything.
      if (req.params.idpId !== kept.idpId) return expired(reply, lang);
      // Only the browser that pressed the button finishes it (external-binding.ts).
      if (!isBoundBrowser(req, interactions.secure(), kept.binding)) return expired(reply, lang);
      if (!(await held.ctx.apply({ kind: 'externalReturned' }, { ifStill: true }))) return expired(reply, lang);
      const finished = await ports.finishExternal({ idpId: kept.idpId, orgId: await ports.orgOfSignIn(interaction), clientId: interaction.clientId, callback: new URL(`${callbackUri(kept.idpId)}${query}`), kept });
      if (finished.kind === 'login' && !finished.secondFactor) {
        const done = await held.ctx.apply({ kind: 'externalSignedIn', userId: finished.userId, amr: finished.amr });
        return done?.step === 'done' ? end(req, reply, held, done) : again(reply, held.ctx.interaction.uid);
      }
      // Linked to nobody, and the provider allows linking: the person signs in here to link it.
      if (finished.kind === 'unlinked') {
        // Only while the sign-in is still where the callback left it (the upstream's exchange took a while).
        const link = { idpId: kept.idpId, subject: finished.subject, name: finished.name, binding: kept.binding };
        if (!(await held.ctx.apply({ kind: 'externalUnlinked', link }, { ifStill: true }))) return again(reply, held.ctx.interaction.uid);
        return show(req, reply, held);
      }
      // forceMfa the upstream did not satisfy: Keyhold's own second factor follows, as after a password.
      if (finished.kind === 'login') {
        const { secondFactor } = await decideSecondFactor(deps.issuer(), ports, finished.userId);
        const outcome = { kind: 'externalNeedsFactor' as const, userId: finished.userId, loginName: finished.username, amr: finished.amr, secondFactor, at: now() };
        if (!(await held.ctx.apply(outcome, { ifStill: true }))) return again(reply, held.ctx.interaction.uid);
        return show(req, reply, held);
      }
      return show(req, reply, held, { text: t(lang, finished.text, { name: finished.name }) });
    });

    app.get<{ Params: { uid: string } }>(`${BASE}/:uid`, async (req, reply) => {
      const interaction = await interactions.load(req.raw, reply.raw, req.params.uid);
      if (!interaction || interaction.foreign) return expired(reply, languageOf(req, interaction));
      const held = contextOf(req, interaction, languageOf(req, interaction));
      // The key page's "Use a recovery code" link (a lost key): only in place of a key the user has.
      // Saved only while the stored login is still where this request read it: a GET (a link, no form
      // token) never undoes what another request of this sign-in wrote meanwhile.
      if (wantsRecovery(req)) await held.ctx.apply({ kind: 'recoveryRequested' }, { ifStill: true });
      return show(req, reply, held);
    });

    app.post<{ Params: { uid: string; step: string } }>(`${BASE}/:uid/:step`, async (req, reply) => {
      const { uid, step: action } = req.params;
      const interaction = await interactions.load(req.raw, reply.raw, uid);
      const lang = languageOf(req, interaction);
      if (!interaction || !tokenOk(uid, (req.body as Record<string, unknown> | undefined)?.form_token)) return expired(reply, lang);
      if (interaction.foreign) return again(reply, uid);
      const held = contextOf(req, interaction, lang);
      if (action === 'restart') {
        await held.ctx.apply({ kind: 'restart' });
        return again(reply, uid);
      }
      if (action === 'idp') return startExternal(req, reply, held);
      const state = held.held.state;
      const step = stepOf(state);
      // A form of another step (posted late, or twice): the login's page as it is now.
      if (!step.actions.includes(action)) return again(reply, uid);
      const submitted = await step.submit(held.ctx, state, action);
      // Another request of this sign-in finished it first: the login's page as it is now.
      if (!(await held.ctx.apply(submitted.outcome))) return again(reply, uid);
      if (held.held.state.step === 'done') return end(req, reply, held, held.held.state);
      if (submitted.page) return send(reply, lang, submitted.page);
      if (submitted.problem) return show(req, reply, held, submitted.problem);
      return again(reply, uid);
    });
  });
}
