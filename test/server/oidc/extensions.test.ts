// The start-up self-check of Keyhold's extensions of oidc-provider
// (src/server/oidc/extensions.ts): a library that changed under them makes
// Keyhold refuse to start, saying what changed. (The real library passing it
// is proven by every Keyhold start in the other tests.)
import { describe, expect, it } from 'vitest';
import { generateClientSecret, hashClientSecret } from '../../../src/domain/oidc/index.js';
import Provider from 'oidc-provider';
import { applyDeviceFlowExtension, applyExtensions, applyIssuerRequests, checkExtensions, checkIssuerRequests, ExtensionCheckFailed } from '../../../src/server/oidc/extensions.js';
import { checkSingleUse } from '../../../src/server/oidc/single-use.js';
import { applyRedirectUris, checkRedirectUris } from '../../../src/server/oidc/redirect-uris.js';
import { applyUnauthorizedClient, checkUnauthorizedClient } from '../../../src/server/oidc/unauthorized-client.js';
import { applyPushedRequests, assertRequestObject, checkPushedRequests, pushedRecord, REQUEST_OBJECT_ALGS } from '../../../src/server/oidc/pushed-requests.js';

/** A stand-in for a changed library: a Client class whose parts can be taken away. */
function fakeProvider(opts: { withoutCompare?: boolean; withoutInvalidate?: boolean; schemaRefusesNothing?: boolean; idTokenSetsIat?: boolean; withoutIdToken?: boolean }) {
  class Schema {
    constructor(metadata: Record<string, any>) {
      if (opts.schemaRefusesNothing) return;
      for (const uri of metadata.redirect_uris ?? []) {
        if (uri.startsWith('javascript:')) this.invalidate('redirect_uris must only contain web uris');
        if (uri.startsWith('http:')) this.invalidate('implicit must use https', 'implicit-force-https');
      }
    }
    invalidate(message: string, _code?: string): void {
      throw new Error(message);
    }
  }
  if (opts.withoutInvalidate) delete (Schema.prototype as any).invalidate;
  class Client {
    static Schema = Schema;
    clientSecret?: string;
    redirectUris: string[];
    constructor(metadata: Record<string, any>) {
      new Schema(metadata);
      this.redirectUris = metadata.redirect_uris;
    }
    compareClientSecret(actual: string) {
      return actual === this.clientSecret;
    }
  }
  if (opts.withoutCompare) delete (Client.prototype as any).compareClientSecret;
  /** The library's IdToken as far as Keyhold relies on it: extra claims merged over the available ones, iat kept when given. */
  class IdToken {
    extra: Record<string, unknown> = {};
    constructor(public available: Record<string, any>, public opts: { client: any }) {}
    get client() {
      return this.opts.client;
    }
    async payload() {
      return { ...this.available, ...this.extra };
    }
    async issue(_o: { use: string }) {
      const payload: Record<string, any> = await this.payload();
      const now = Math.floor(Date.now() / 1000);
      if (opts.idTokenSetsIat || payload.iat === undefined) payload.iat = now;
      payload.exp = now + 3600;
      return `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    }
  }
  if (opts.withoutIdToken) return { Client };
  return { Client, IdToken };
}

const secret = generateClientSecret();
const hash = hashClientSecret(secret);

describe('extension self-check', () => {
  it('passes on the shape Keyhold extends', async () => {
    const provider = fakeProvider({});
    applyExtensions(provider);
    await expect(checkExtensions(provider, hash, secret)).resolves.toBeUndefined();
  });

  it('fails loudly, naming the part, when a hook is gone', () => {
    expect(() => applyExtensions(fakeProvider({ withoutCompare: true }))).toThrow(ExtensionCheckFailed);
    expect(() => applyExtensions(fakeProvider({ withoutCompare: true }))).toThrow(/Client\.prototype\.compareClientSecret is gone/);
    expect(() => applyExtensions(fakeProvider({ withoutInvalidate: true }))).toThrow(/Client\.Schema\.prototype\.invalidate is gone/);
    expect(() => applyExtensions(fakeProvider({ withoutIdToken: true }))).toThrow(/IdToken\.prototype\.issue\/payload is gone/);
  });

  it('fails when the schema stopped refusing what it must, or the prototype is no longer what is called', async () => {
    const lax = fakeProvider({ schemaRefusesNothing: true });
    applyExtensions(lax);
    await expect(checkExtensions(lax, hash, secret)).rejects.toThrow(/no longer refuses a javascript: redirect URI/);
    // compareClientSecret replaced after Keyhold's (a library that re-assigns it): the transport rule is gone.
    const replaced = fakeProvider({});
    applyExtensions(replaced);
    replaced.Client.prototype.compareClientSecret = function (this: { clientSecret?: string }, actual: string) {
      return hashClientSecret(actual) === this.clientSecret;
    };
    await expect(checkExtensions(replaced, hash, secret)).rejects.toThrow(/no longer decides by the transport/);
    const ownIat = fakeProvider({ idTokenSetsIat: true });
    applyExtensions(ownIat);
    await expect(checkExtensions(ownIat, hash, secret)).rejects.toThrow(/no longer lets Keyhold set iat\/nbf\/auth_time of an ID token \(clockSkew\)/);
  });

  it('the device flow extension (6.) fails loudly when the parts it extends are gone', () => {
    const options = {
      verificationPath: '/v',
      pollIntervalSeconds: 5,
      recordPoll: async () => ({ slowDown: false, intervalSeconds: 5 }),
      reserveUserCode: async () => ({ ok: false as const, waitSeconds: 1 }),
    };
    expect(() => applyDeviceFlowExtension(fakeProvider({}), options)).toThrow(/DeviceCode\.find is gone/);
    const withoutUserCodes = Object.assign(fakeProvider({}), { DeviceCode: { find: async () => undefined } });
    expect(() => applyDeviceFlowExtension(withoutUserCodes, options)).toThrow(/DeviceCode\.findByUserCode is gone/);
    const withoutUse = Object.assign(fakeProvider({}), { DeviceCode: { find: async () => undefined, findByUserCode: async () => undefined } });
    expect(() => applyDeviceFlowExtension(withoutUse, options)).toThrow(/Provider#use\/on is gone/);
  });

  it("a device code stored without the fields its one-time steps read is refused at start (single-use.ts)", () => {
    const stored = ['jti', 'consumed', 'accountId', 'error', 'params', 'userCode', 'inFlight'];
    expect(() => checkSingleUse({ DeviceCode: { IN_PAYLOAD: stored } })).not.toThrow();
    expect(() => checkSingleUse({ DeviceCode: { IN_PAYLOAD: stored.filter((f) => f !== 'inFlight') } })).toThrow(ExtensionCheckFailed);
    expect(() => checkSingleUse({ DeviceCode: { IN_PAYLOAD: ['jti'] } })).toThrow(/DeviceCode no longer stores inFlight, accountId, error/);
  });
});

describe('the issuer decides the request host and protocol (8.)', () => {
  const issuer = 'https://login.example.com';

  it("passes on the library as pinned: discovery asked with a foreign Host advertises the issuer's URLs", async () => {
    const provider = new Provider(issuer, {});
    applyIssuerRequests(provider, issuer);
    await expect(checkIssuerRequests(provider, issuer)).resolves.toBeUndefined();
  });

  it('fails loudly when the URLs come from the request again (a library that reads the host elsewhere)', async () => {
    const provider = new Provider(issuer, {});
    await expect(checkIssuerRequests(provider, issuer)).rejects.toThrow(ExtensionCheckFailed);
    await expect(checkIssuerRequests(provider, issuer)).rejects.toThrow(/discovery asked with a foreign Host advertises .*keyhold-self-check\.invalid/);
    applyIssuerRequests(provider, issuer);
    // Pinned, then href taken from the Host header again by a changed library.
    Object.defineProperty((provider as any).request, 'href', { get(this: any) { return `http://${this.get('host')}${this.originalUrl}`; }, configurable: true });
    await expect(checkIssuerRequests(provider, issuer)).rejects.toThrow(/jwks_uri=http:\/\/keyhold-self-check\.invalid\/jwks/);
  });
});

describe('which redirect URIs match (redirect-uris.ts) and unauthorized_client (unauthorized-client.ts)', () => {
  const issuer = 'https://login.example.com';

  it('pass on the library as pinned', () => {
    const provider = new Provider(issuer, {});
    applyRedirectUris(provider);
    applyUnauthorizedClient(provider);
    expect(() => checkRedirectUris(provider)).not.toThrow();
    expect(() => checkUnauthorizedClient(provider)).not.toThrow();
  });

  it('fail loudly when the library decides elsewhere (its own methods back in place) or the parts are gone', () => {
    const provider = new Provider(issuer, {});
    const { redirectUriAllowed, grantTypeAllowed } = (provider as any).Client.prototype;
    applyRedirectUris(provider);
    applyUnauthorizedClient(provider);
    (provider as any).Client.prototype.redirectUriAllowed = redirectUriAllowed;
    (provider as any).Client.prototype.grantTypeAllowed = grantTypeAllowed;
    expect(() => checkRedirectUris(provider)).toThrow(/redirectUriAllowed\/postLogoutRedirectUriAllowed are no longer what decides/);
    expect(() => checkUnauthorizedClient(provider)).toThrow(/no longer decide what an app may use \(unauthorized_client\)/);
    const gone = { Client: class {}, AuthorizationCode: {} };
    expect(() => applyRedirectUris(gone)).toThrow(/Client\.prototype\.redirectUriAllowed is gone/);
    expect(() => applyUnauthorizedClient(gone)).toThrow(/Client\.prototype\.grantTypeAllowed is gone/);
  });
});

describe('pushed requests and request objects (pushed-requests.ts, 10.)', () => {
  const issuer = 'https://login.example.com';
  /** A provider configured as Keyhold's is for these two features (its URLs the issuer's: 8.). */
  const configured = (features: Record<string, unknown> = {}, algs: string[] = [...REQUEST_OBJECT_ALGS]) => {
    const provider = new Provider(issuer, {
      routes: { pushed_authorization_request: '/oauth/v2/par' },
      enabledJWA: { requestObjectSigningAlgValues: algs },
      features: {
        pushedAuthorizationRequests: { enabled: true },
        requestObjects: { enabled: true, assertJwtClaimsAndHeader: assertRequestObject },
        ...features,
      },
    });
    applyIssuerRequests(provider, issuer);
    return provider;
  };

  it('passes on the library as pinned', async () => {
    const provider = configured();
    applyPushedRequests(provider);
    await expect(checkPushedRequests(provider, issuer, '/oauth/v2/par')).resolves.toBeUndefined();
  });

  it("fails loudly when the pushed request's save is the library's again, or discovery offers more than is verified", async () => {
    const provider = configured();
    const { save } = (provider as any).PushedAuthorizationRequest.prototype;
    applyPushedRequests(provider);
    (provider as any).PushedAuthorizationRequest.prototype.save = save;
    await expect(checkPushedRequests(provider, issuer, '/oauth/v2/par')).rejects.toThrow(/PushedAuthorizationRequest\.prototype\.save is no longer Keyhold's/);
    const withHs256 = configured({}, ['RS256', 'HS256']);
    applyPushedRequests(withHs256);
    await expect(checkPushedRequests(withHs256, issuer, '/oauth/v2/par')).rejects.toThrow(/request_object_signing_alg_values_supported \["RS256","HS256"\]/);
    const withoutPar = configured({ pushedAuthorizationRequests: { enabled: false } });
    applyPushedRequests(withoutPar);
    await expect(checkPushedRequests(withoutPar, issuer, '/oauth/v2/par')).rejects.toThrow(/pushed_authorization_request_endpoint undefined/);
    expect(() => applyPushedRequests({ PushedAuthorizationRequest: class {} })).toThrow(/PushedAuthorizationRequest\.prototype\.save is gone/);
  });

  it("a plain push's record gets the scope as sent; a request object is stored as it came; U+0000 is refused", () => {
    const unsecured = (payload: object) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
    const plain = unsecured({ scope: 'openid', client_id: 'c' });
    expect(payloadOf(pushedRecord(plain, 'openid offline_access urn:keyhold:iam:org:id:1'))).toEqual({ scope: 'openid offline_access urn:keyhold:iam:org:id:1', client_id: 'c' });
    expect(pushedRecord(plain, undefined)).toBe(plain);
    const signed = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"scope":"openid"}').toString('base64url')}.c2ln`;
    expect(pushedRecord(signed, 'openid offline_access')).toBe(signed);
    let refused: any;
    try {
      pushedRecord(unsecured({ state: 'a\u0000b' }), undefined);
    } catch (e) {
      refused = e;
    }
    expect(refused).toMatchObject({ error: 'invalid_request', error_description: 'state: contains the NUL character (U+0000)' });
  });
});
