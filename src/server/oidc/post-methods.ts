// POST at the authorization and end-session endpoints (OpenID Connect Core
// §3.1.2.1, RP-Initiated Logout §2: both GET and POST with form
// serialization). An extension of oidc-provider (README "Extensions of
// oidc-provider" 10.), with its start-up self-check (checkPostMethods).
//
// The library serves POST there only with `enableHttpPostMethods`, which it
// allows only with the session cookie SameSite=None: a relying party's page
// that submits a form to Keyhold makes a cross-site POST, and a browser sends
// no SameSite=Lax cookie with it — the user's Keyhold session would not be
// seen (prompt=none answers login_required, a sign-out finds nothing to end)
// and the library would plant a new session cookie over it. Keyhold keeps its
// cookies Lax (docs/security.md 10., 13.) and does this instead, before the
// library routes the request:
// - The form is read here, strictly: application/x-www-form-urlencoded
//   (UTF-8) only, at most 16 KiB (what a GET can carry), no query on the
//   URL, no parameter twice, valid percent-encoding — else 400
//   invalid_request naming what is wrong.
// - A POST a browser sent from another site (Sec-Fetch-Site: cross-site; in a
//   browser without Fetch Metadata, an Origin other than the issuer's) is
//   answered with a page of Keyhold's that submits the same form to the same
//   endpoint by itself (a button without JavaScript): that second POST comes
//   from Keyhold's own origin, so the browser sends Keyhold's cookies with it.
// - Any other POST is handed to the library as the GET it stands for (method
//   GET, the form as the query), so every rule of the GET endpoint — client
//   and redirect checks, prompt, consent, the sign-out question — applies to
//   it unchanged; a redirect it answers is a 303 (RFC 9110 §15.4.4).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { negotiateLanguage } from '../../domain/i18n/language.js';
import { ExtensionCheckFailed, requestInProcess } from './extensions.js';
import { escapeHtml, LOGIN_CSP, LOGIN_HEADERS, page, renderErrorPage, t } from './pages.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The library's bound on a form body (lib/shared/selective_body.js). */
// What a GET's request line can carry under the default header limit
// (KEYHOLD_MAX_HEADER_BYTES, 16 KiB): a POST stores no more with the library
// (an interaction holds every parameter for an hour) than the same GET could.
export const POST_BODY_LIMIT = 16 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';
const FORM_ID = 'keyhold-continue';
// Through the prototype: a parameter named `submit` would shadow the form's own method.
const SCRIPT = `HTMLFormElement.prototype.submit.call(document.getElementById('${FORM_ID}'))`;
const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');
/** The continue page's policy: the login pages' with its one inline script, by hash. */
export const CONTINUE_CSP = `${LOGIN_CSP}; script-src 'sha256-${SCRIPT_HASH}'`;

/** A request the extension refuses: 400 invalid_request with what is wrong. */
class FormRefused extends Error {}

/** The body, at most POST_BODY_LIMIT bytes. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > POST_BODY_LIMIT) throw new FormRefused(`the request body is larger than ${POST_BODY_LIMIT / 1024} KiB`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length;
      if (size > POST_BODY_LIMIT) break;
      chunks.push(chunk as Buffer);
    }
  } catch {
    throw new FormRefused('the request body could not be read');
  }
  if (size > POST_BODY_LIMIT) throw new FormRefused(`the request body is larger than ${POST_BODY_LIMIT / 1024} KiB`);
  return Buffer.concat(chunks);
}

/** A parameter's name as an answer may quote it. */
const named = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);

/** The form's parameters in order; refused when a name comes twice, holds U+0000, or the encoding is not UTF-8. */
export function parseForm(body: string): [string, string][] {
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const part of body.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const [rawName, rawValue] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '));
      value = decodeURIComponent(rawValue.replaceAll('+', ' '));
    } catch {
      throw new FormRefused('the form body is not valid percent-encoded UTF-8');
    }
    // As at every OpenID endpoint (adapter.ts); an HTML page could not carry it on either.
    if (name.includes('\u0000') || value.includes('\u0000')) throw new FormRefused(`parameter ${named(name.replaceAll('\u0000', ''))} contains the NUL character (U+0000)`);
    if (seen.has(name)) twice.add(name);
    seen.add(name);
    pairs.push([name, value]);
  }
  if (twice.size > 0) {
    const names = [...twice].slice(0, 5).map(named).join(', ');
    throw new FormRefused(`${twice.size === 1 ? 'parameter' : 'parameters'} ${names} must not be provided twice`);
  }
  return pairs;
}

/** The parameters of a POST to one of the endpoints, or FormRefused saying why not. */
async function formOf(ctx: Any): Promise<[string, string][]> {
  if (ctx.querystring) throw new FormRefused('a POST carries its parameters in the form body, not in the query of the URL');
  const type = String(ctx.get('content-type') ?? '');
  const [mime, ...params] = type.split(';').map((p: string) => p.trim());
  if (mime?.toLowerCase() !== FORM_TYPE) {
    throw new FormRefused(`the content type must be ${FORM_TYPE}${type ? ` (was ${JSON.stringify(type.slice(0, 100))})` : ' (none was sent)'}`);
  }
  for (const param of params) {
    const [key, value] = param.split('=').map((p: string) => p.trim().replace(/^"|"$/g, '').toLowerCase());
    if (key === 'charset' && value !== 'utf-8') throw new FormRefused(`the form body must be UTF-8 (charset was ${JSON.stringify(value?.slice(0, 40) ?? '')})`);
  }
  let body: string;
  try {
    body = new TextDecoder('utf-8', { fatal: true }).decode(await readBody(ctx.req));
  } catch (e) {
    if (e instanceof FormRefused) throw e;
    throw new FormRefused('the form body is not UTF-8');
  }
  return parseForm(body);
}

/** Whether a browser sent this request from another site (its SameSite=Lax cookies stayed behind). */
function fromAnotherSite(ctx: Any, issuerOrigin: string): boolean {
  const site = String(ctx.get('sec-fetch-site') ?? '');
  if (site) return site === 'cross-site';
  const origin = String(ctx.get('origin') ?? '');
  return origin !== '' && origin !== issuerOrigin;
}

/** Keyhold's page that sends the same form again, now from Keyhold's own origin. */
function renderContinuePage(ctx: Any, action: string, form: [string, string][]): void {
  const lang = negotiateLanguage(ctx.get('accept-language'));
  const fields = form.map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('');
  const body =
    `<form id="${FORM_ID}" method="post" action="${escapeHtml(action)}">${fields}` +
    `<noscript><p>${t(lang, 'continueText')}</p><button type="submit">${t(lang, 'continueButton')}</button></noscript></form>` +
    `<script>${SCRIPT}</script>`;
  for (const [k, v] of Object.entries(LOGIN_HEADERS)) ctx.set(k, v);
  ctx.set('content-security-policy', CONTINUE_CSP);
  // The Origin of the form's POST is Keyhold's own (with no-referrer a browser would send `Origin: null`).
  ctx.set('referrer-policy', 'same-origin');
  ctx.status = 200;
  ctx.type = 'html';
  ctx.body = page(lang, t(lang, 'continueButton'), body, undefined, 'same-origin');
}

async function refuse(ctx: Any, description: string): Promise<void> {
  const out = { error: 'invalid_request', error_description: description };
  ctx.status = 400;
  if (ctx.accepts('json', 'html') === 'json') {
    ctx.set('cache-control', 'no-store');
    ctx.body = out;
    return;
  }
  await renderErrorPage(ctx, out, undefined);
}

export interface PostMethodsOptions {
  /** The endpoints that take POST as GET (configuration.ts OIDC_ROUTES: authorization, end_session). */
  paths: readonly string[];
}

export function applyPostMethods(provider: Any, options: PostMethodsOptions): void {
  if (typeof provider.use !== 'function') throw new ExtensionCheckFailed('Provider#use is gone');
  const paths = new Set(options.paths);
  const issuer = new URL(provider.issuer);
  provider.use(async function keyholdPostMethods(ctx: Any, next: () => Promise<void>) {
    if (ctx.method !== 'POST' || !paths.has(ctx.path)) return next();
    let form: [string, string][];
    try {
      form = await formOf(ctx);
    } catch (e) {
      if (!(e instanceof FormRefused)) throw e;
      await refuse(ctx, e.message);
      return;
    }
    if (fromAnotherSite(ctx, issuer.origin)) {
      renderContinuePage(ctx, new URL(ctx.path, issuer).href, form);
      return;
    }
    ctx.method = 'GET';
    ctx.querystring = new URLSearchParams(form).toString();
    await next();
    if (ctx.status === 302) ctx.status = 303;
  });
}

/**
 * Proves the extension takes hold on this provider, at start (after
 * applyPostMethods): a POST from another site gets the continue page; a POST
 * from Keyhold's origin reaches the library's GET endpoint with its form as
 * the parameters (a client id nobody holds, an id_token_hint that is no JWT:
 * refused by the library by name); a doubled parameter is 400.
 */
export async function checkPostMethods(provider: Any, options: PostMethodsOptions): Promise<void> {
  const handler = provider.callback();
  const headers = (site: string) => ({ host: new URL(provider.issuer).host, accept: 'text/html', 'sec-fetch-site': site });
  for (const path of options.paths) {
    const crossSite = await requestInProcess(handler, path, { headers: headers('cross-site'), form: { state: 'keyhold-self-check' } });
    if (crossSite.status !== 200 || !crossSite.body.includes('value="keyhold-self-check"') || !String(crossSite.headers['content-security-policy'] ?? '').includes(SCRIPT_HASH)) {
      throw new ExtensionCheckFailed(`a cross-site POST to ${path} no longer gets Keyhold's continue page (status ${crossSite.status})`);
    }
  }
  const [authorization, endSession] = options.paths;
  // Its client_id reaches the library: an unknown client is invalid_client (without it the library would ask for one).
  const asGet = authorization ? await requestInProcess(handler, authorization, { headers: headers('same-origin'), form: { client_id: 'keyhold-self-check', response_type: 'code', scope: 'openid' } }) : undefined;
  if (asGet && (asGet.status !== 400 || !asGet.body.includes('invalid_client'))) {
    throw new ExtensionCheckFailed(`a POST to ${authorization} no longer reaches the library's authorization endpoint with its form as the parameters (status ${asGet.status})`);
  }
  // An id_token_hint that is no JWT is refused by name before any session is saved.
  const logout = endSession ? await requestInProcess(handler, endSession, { headers: headers('same-origin'), form: { id_token_hint: 'keyhold-self-check' } }) : undefined;
  if (logout && (logout.status !== 400 || !logout.body.includes('id_token_hint'))) {
    throw new ExtensionCheckFailed(`a POST to ${endSession} no longer reaches the library's end-session endpoint with its form as the parameters (status ${logout.status})`);
  }
  const doubled = await requestInProcess(handler, options.paths[0] ?? '/', { headers: headers('same-origin'), form: {}, rawBody: 'state=a&state=b' });
  if (doubled.status !== 400 || !doubled.body.includes('must not be provided twice')) {
    throw new ExtensionCheckFailed(`a POST with a parameter twice is no longer refused (status ${doubled.status})`);
  }
}
