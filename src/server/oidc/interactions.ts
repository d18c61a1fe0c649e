// The login's interaction port (src/login/ports.ts) over oidc-provider: the one
// place the login touches the library's interaction, client and grant objects.
// The login's state is stored in the interaction (result.keyhold), so it
// expires with the sign-in and lives in the database like the rest of it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ended, InteractionPort, LoginInteraction } from '../../login/ports.js';
import { asLoginState, type LoginState } from '../../login/state.js';
import type { StoredExpectation } from '../../store/oidc-store.js';
import { acrOf } from './acr.js';
import { consentNeededForApi } from './api-audience.js';
import { ORG_SCOPE_PREFIX, orgScopeIn } from './org-scope.js';
import { saveIfStored } from './single-use.js';
import { isStoreUnavailable } from './unavailable.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Where the state is stored in the interaction (saveIfStored's paths). */
const STATE_PATH = ['result', 'keyhold'];

const appName = (client: Any): string => client?.clientName ?? client?.client_name ?? client?.clientId ?? '';

export function interactionPort(deps: {
  provider: () => Any;
  /** The app a sign-in is for, onto the request's log line (error-notes.ts). */
  noteClient?: (req: IncomingMessage, clientId: string) => void;
}): InteractionPort {
  /** The library's interaction behind each view this port handed out. */
  const held = new WeakMap<LoginInteraction, Any>();
  const of = (view: LoginInteraction): Any => {
    const interaction = held.get(view);
    if (!interaction) throw new Error('not an interaction this port loaded');
    return interaction;
  };

  async function save(view: LoginInteraction, state: LoginState): Promise<void> {
    const interaction = of(view);
    // The start of a sign-in is nothing stored (unless a link waits on it); the consent prompt is never stored (a done login is, read back as none).
    interaction.result = state.step === 'identify' && !state.link ? undefined : { keyhold: state };
    await interaction.persist();
    view.state = state;
  }

  /**
   * The library's interactionResult (merged with the last submission, as `mergeWithLastSubmission`
   * asks, but for an error) on the interaction this request already holds: the library's own call
   * reads it once more by the cookie, a statement per finished sign-in. Held, it is the one this
   * request loaded and, where the step moved, just saved (conditionally: the stored state was the
   * one it finishes), so the read would only see what this request wrote.
   */
  async function resultSaved(interaction: Any, result: Any): Promise<string | undefined> {
    interaction.result = 'error' in result ? result : { ...interaction.lastSubmission, ...result };
    // Only onto the stored interaction, as long as it is there and not expired: a finish that lost
    // the race to the sign-in's resume (a consent sent twice) does not bring a resumed one back.
    // At least a second: an expiry of 0 would be none at all.
    const saved = await saveIfStored([{ path: ['jti'], equals: String(interaction.jti) }], () => interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000))));
    return saved ? interaction.returnTo : undefined;
  }

  /** Ends the interaction; a NATIVE app without skipNativeAppSuccessPage gets the "you may close this window" page first. */
  async function finish(view: LoginInteraction, result: Any): Promise<Ended | undefined> {
    const provider = deps.provider();
    const interaction = of(view);
    const client = await provider.Client.find(view.clientId);
    const returnTo = await resultSaved(interaction, result);
    if (returnTo === undefined) return undefined;
    // A device sign-in (RFC 8628) ends on the library's done page (device-pages.ts), never on this one.
    const native = client?.applicationType === 'native' && !interaction.deviceCode && !(client.keyholdSkipNativeSuccessPage ?? client.keyhold_skip_native_success_page);
    return { returnTo, nativeDone: Boolean(native && result.consent) };
  }

  return {
    async load(req, res, uid) {
      const provider = deps.provider();
      let interaction: Any;
      try {
        interaction = await provider.interactionDetails(req, res);
      } catch (err) {
        // A sign-in that could not be read is not an expired one.
        if (isStoreUnavailable(err)) throw err;
        return undefined;
      }
      if (interaction.uid !== uid) return undefined;
      const params = interaction.params ?? {};
      // The library took it from a known client's authorization request.
      if (typeof params.client_id === 'string') deps.noteClient?.(req, params.client_id);
      const client = await provider.Client.find(params.client_id).catch(() => undefined);
      const prompt = interaction.prompt?.name;
      const state: LoginState = prompt === 'consent' ? { step: 'consent' } : (asLoginState(interaction.result?.keyhold) ?? { step: 'identify' });
      const view: LoginInteraction = {
        uid,
        clientId: String(params.client_id ?? ''),
        state,
        foreign: prompt !== 'login' && prompt !== 'consent',
        loginHint: typeof params.login_hint === 'string' ? params.login_hint : '',
        uiLocales: typeof params.ui_locales === 'string' ? params.ui_locales : '',
        scope: params.scope,
        orgId: orgScopeIn(params.scope)?.slice(ORG_SCOPE_PREFIX.length),
        consentAsked: String(params.prompt ?? '').split(' ').includes('consent'),
        apiConsentNeeded: consentNeededForApi(interaction),
        sessionAccountId: typeof interaction.session?.accountId === 'string' ? interaction.session.accountId : undefined,
        expiresAt: typeof interaction.exp === 'number' ? interaction.exp * 1000 : undefined,
        app: { name: appName(client), projectId: client?.keyholdProjectId ?? client?.keyhold_project_id },
      };
      held.set(view, interaction);
      return view;
    },
    save,
    async saveIfStill(view, expected, state) {
      const at = (field: string, value: string | undefined): StoredExpectation => ({ path: [...STATE_PATH, field], equals: value ?? null });
      const still: StoredExpectation[] = [
        // The first page is stored as nothing (save), unless a link waits on it.
        at('step', expected.step === 'identify' && !expected.link ? undefined : expected.step),
        at('userId', 'userId' in expected ? expected.userId : undefined),
        // A link dropped or replaced meanwhile (another tab started over) is not brought back.
        { path: [...STATE_PATH, 'link', 'subject'], equals: expected.link?.subject ?? null },
        { path: [...STATE_PATH, 'link', 'idpId'], equals: expected.link?.idpId ?? null },
      ];
      // Finishing compares the step and its user only: a key challenge another request's page issued
      // meanwhile does not undo a login whose own challenge was already taken (by its own conditional save).
      if (state.step !== 'done') still.push({ path: [...STATE_PATH, 'challenge', 'value'], equals: ('challenge' in expected ? expected.challenge?.value : undefined) ?? null });
      return saveIfStored(still, () => save(view, state));
    },
    async finishLogin(view, { accountId, amr }) {
      const login = { accountId, amr, acr: acrOf(amr), remember: true, ts: Math.floor(Date.now() / 1000) };
      return finish(view, { login });
    },
    /** Grants what was asked (the consent OIDC needs is given, or none was needed) and finishes the interaction. */
    async grantConsent(view) {
      const provider = deps.provider();
      const { prompt, params, session, grantId } = of(view);
      const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const details = prompt.details ?? {};
      if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
      if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
      if (details.missingResourceScopes) {
        for (const [indicator, scopes] of Object.entries(details.missingResourceScopes as Record<string, string[]>)) grant.addResourceScope(indicator, scopes.join(' '));
      }
      const saved = await grant.save();
      return finish(view, { consent: { grantId: saved } });
    },
    denyConsent: (view) => finish(view, { error: 'access_denied', error_description: 'the user denied the request' }),
    secure: () => String(deps.provider()?.issuer ?? '').startsWith('https:'),
  };
}
