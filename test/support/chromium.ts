// A real browser for WebAuthn tests: Debian's Chromium driven by playwright-core,
// with a CDP virtual authenticator standing in for a USB security key.
//
// Never downloads a browser: it launches /usr/bin/chromium (apt-get install -y
// chromium) or, if that is missing, the tests skip with a visible message.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** True when Debian's Chromium is installed; browser tests skip otherwise. */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** Logs why browser tests are skipped, so a skip is visible in the test output. */
export function announceChromiumSkip(what: string): void {
  if (!chromiumAvailable()) {
    console.warn(`[skip] ${what}: ${CHROMIUM_PATH} not found (install it with: apt-get install -y chromium)`);
  }
}

/** `extraArgs`: more command-line switches (e.g. host-resolver rules for a test's domain). */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A new page (own context, so no state leaks between tests) at `url`. */
export async function openPage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

export interface VirtualAuthenticatorSettings {
  /** 'ctap2': a FIDO2 key; 'u2f': a legacy FIDO U2F key (Chrome wraps its output as fido-u2f). */
  protocol: 'ctap2' | 'u2f';
  transport?: 'usb' | 'nfc' | 'ble' | 'internal';
}

export interface VirtualAuthenticator {
  id: string;
  cdp: CDPSession;
  /** Credentials the authenticator holds (CDP WebAuthn.getCredentials). */
  credentials(): Promise<Array<{ credentialId: string; signCount: number; isResidentCredential: boolean }>>;
  remove(): Promise<void>;
}

/**
 * Adds a virtual authenticator to the page's browser context: a security key
 * without user verification whose presence check passes by itself.
 */
export async function addVirtualAuthenticator(
  page: Page,
  settings: VirtualAuthenticatorSettings,
): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: settings.protocol,
      transport: settings.transport ?? 'usb',
      hasResidentKey: false,
      hasUserVerification: false,
      isUserVerified: false,
      automaticPresenceSimulation: true,
    },
  });
  return {
    id: authenticatorId,
    cdp,
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
    async remove() {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    },
  };
}

/** navigator.credentials.create() rejected in the page; `name` is the DOMException's name. */
export class BrowserWebAuthnError extends Error {
  constructor(
    readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

type PageOutcome = { credential: RegistrationResponseJSON } | { error: { name: string; message: string } };

/**
 * Runs navigator.credentials.create() in the page with `optionsJSON`, doing in the
 * page what a site's own script does: base64url-decode the binary members, and
 * encode the PublicKeyCredential back to RegistrationResponseJSON (with
 * response.transports from getTransports()). Throws BrowserWebAuthnError when the
 * browser refuses (e.g. InvalidStateError for an excluded credential).
 */
export async function createCredential(
  page: Page,
  optionsJSON: PublicKeyCredentialCreationOptionsJSON,
): Promise<RegistrationResponseJSON> {
  const outcome = await page.evaluate(async (options): Promise<PageOutcome> => {
    const fromB64url = (s: string): ArrayBuffer => {
      const b64 = s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '=');
      const raw = atob(b64);
      const bytes = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
      return bytes.buffer;
    };
    const toB64url = (buffer: ArrayBuffer): string => {
      let raw = '';
      for (const b of new Uint8Array(buffer)) raw += String.fromCharCode(b);
      return btoa(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    };
    const publicKey = {
      ...options,
      challenge: fromB64url(options.challenge),
      user: { ...options.user, id: fromB64url(options.user.id) },
      excludeCredentials: (options.excludeCredentials ?? []).map((c) => ({ ...c, id: fromB64url(c.id) })),
    } as unknown as PublicKeyCredentialCreationOptions;
    try {
      const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAttestationResponse;
      return {
        credential: {
          id: credential.id,
          rawId: toB64url(credential.rawId),
          type: 'public-key',
          response: {
            clientDataJSON: toB64url(response.clientDataJSON),
            attestationObject: toB64url(response.attestationObject),
            transports: response.getTransports ? response.getTransports() : [],
          },
          authenticatorAttachment: (credential.authenticatorAttachment ?? undefined) as AuthenticatorAttachment | undefined,
          clientExtensionResults: credential.getClientExtensionResults() as Record<string, unknown>,
        },
      };
    } catch (e) {
      const err = e as DOMException;
      return { error: { name: err.name ?? 'Error', message: err.message ?? String(e) } };
    }
  }, optionsJSON);
  if ('error' in outcome) throw new BrowserWebAuthnError(outcome.error.name, outcome.error.message);
  return outcome.credential;
}

const SIMPLEWEBAUTHN_BROWSER_BUNDLE = createRequire(import.meta.url)
  .resolve('@simplewebauthn/browser')
  .replace(/script[\\/]index\.js$/, 'dist/bundle/index.umd.min.js');

/**
 * Creates the credential the way a site using @simplewebauthn/browser does:
 * startRegistration({ optionsJSON }) from its published UMD bundle, with the
 * options exactly as Keyhold returns them.
 */
export async function createCredentialWithSimpleWebAuthnBrowser(
  page: Page,
  optionsJSON: PublicKeyCredentialCreationOptionsJSON,
): Promise<RegistrationResponseJSON> {
  await page.addScriptTag({ path: SIMPLEWEBAUTHN_BROWSER_BUNDLE });
  const outcome = await page.evaluate(async (options): Promise<PageOutcome> => {
    const lib = (globalThis as unknown as {
      SimpleWebAuthnBrowser: { startRegistration(o: { optionsJSON: unknown }): Promise<RegistrationResponseJSON> };
    }).SimpleWebAuthnBrowser;
    try {
      return { credential: await lib.startRegistration({ optionsJSON: options }) };
    } catch (e) {
      const err = e as Error & { code?: string };
      return { error: { name: err.name ?? 'Error', message: `${err.code ?? ''} ${err.message}`.trim() } };
    }
  }, optionsJSON);
  if ('error' in outcome) throw new BrowserWebAuthnError(outcome.error.name, outcome.error.message);
  return outcome.credential;
}
