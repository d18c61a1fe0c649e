// The login UI and the device pages one step at a time, over plain HTTP with
// a cookie jar (./oidc-login.ts's browser): for tests that look at each page
// on the way (the consent page, the device confirmation) rather than only at
// where the login ends.
import { formAction, formToken, type Browser } from './oidc-login.js';

/** Where a step left the browser: a page of Keyhold's (`html`), or a URL outside it (`left`). */
export interface Step {
  left?: URL;
  html?: string;
  url: URL;
}

/** Submits the login UI's form `name` found on `step`'s page (its form token added). */
export async function submit(b: Browser, step: Step, name: string, form: Record<string, string>): Promise<Step> {
  const action = formAction(step.html ?? '', name);
  if (!action) throw new Error(`no ${name} form on ${step.url}: ${step.html?.slice(0, 600)}`);
  const res = await b.request(new URL(action, step.url), { form: { form_token: formToken(step.html!), ...form } });
  const location = res.headers.get('location');
  return location ? b.follow(new URL(location, step.url)) : { html: await res.text(), url: step.url };
}

/** From `start`, username and password when the login UI asks; stops at the next page (consent) or where the browser leaves Keyhold. */
export async function signIn(b: Browser, start: URL | string, username: string, password: string): Promise<Step> {
  let step: Step = await b.follow(start);
  if (!step.left && formAction(step.html ?? '', 'username')) step = await submit(b, step, 'username', { username });
  if (!step.left && formAction(step.html ?? '', 'password')) step = await submit(b, step, 'password', { username, password });
  return step;
}

export const isConsentPage = (step: Step): boolean => !step.left && formAction(step.html ?? '', 'consent') !== undefined;

const hiddenValue = (html: string, name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? '';

/** The device pages: the prefilled code page of verification_uri_complete submitted; answers the confirmation page. */
export async function deviceConfirmation(b: Browser, verificationUriComplete: string): Promise<Step> {
  const entry = await b.follow(verificationUriComplete);
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(entry.html ?? '')?.[1] ?? '', entry.url);
  const posted = await b.request(action, { form: { xsrf: hiddenValue(entry.html!, 'xsrf'), user_code: hiddenValue(entry.html!, 'user_code') } });
  return { html: await posted.text(), url: action };
}

/** "Continue and sign in" on the device confirmation page: on to the login UI (or the done page when nothing is left to ask). */
export async function deviceContinue(b: Browser, confirmation: Step): Promise<Step> {
  const res = await b.request(confirmation.url, {
    form: { xsrf: hiddenValue(confirmation.html!, 'xsrf'), user_code: hiddenValue(confirmation.html!, 'user_code'), confirm: 'yes' },
  });
  const location = res.headers.get('location');
  return location ? b.follow(new URL(location, confirmation.url)) : { html: await res.text(), url: confirmation.url };
}
