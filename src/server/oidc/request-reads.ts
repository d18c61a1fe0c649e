// What one provider request has already read of its tokens, so that the
// library's next lookup in that request is answered without a statement.
//
// The library looks a token up by model: introspection asks for an access
// token, a client-credentials token and a refresh token at once (it cannot
// tell them apart), then loads the grant of the one it found; userinfo and
// refresh load the token, then its grant. The adapter answers the first of
// these with one statement (the store's findToken: the row under any token
// model, with its grant) and the others from what it returned. The code
// exchange likewise: the authorization code with its grant, and the session
// the library then checks it is still bound to.
//
// Scoped to one request (a request-context slot entered by provider middleware)
// and emptied by any write the adapter makes in it, so nothing read is held
// across requests, and nothing is answered from before this request's own
// writes. Outside a provider request (the login pages) there is none: every
// lookup reads.
import { contextSlot } from '../request-context.js';
import type { FoundToken, OidcPayload } from '../../store/oidc-store.js';

/** The token models findToken probes together. */
export const TOKEN_MODELS: readonly string[] = ['AccessToken', 'ClientCredentials', 'RefreshToken'];
const CODE_MODELS: readonly string[] = ['AuthorizationCode'];

/** The models one lookup of `model` reads together with its grant, or undefined for a model looked up alone. */
export const lookedUpTogether = (model: string): readonly string[] | undefined =>
  TOKEN_MODELS.includes(model) ? TOKEN_MODELS : CODE_MODELS.includes(model) ? CODE_MODELS : undefined;

export interface RequestReads {
  /** Token lookups by the first model looked up and the id: the pending or settled findToken of this request. */
  tokens: Map<string, Promise<FoundToken[]>>;
  /** Grants by id, as the token lookups found them (undefined: gone or expired). */
  grants: Map<string, OidcPayload | undefined>;
  /** Sessions by uid, as the token lookups found the session each token names (undefined: none live). */
  sessions: Map<string, OidcPayload | undefined>;
}

const reads = contextSlot<RequestReads>('request reads');

/** The current provider request's reads, or undefined outside one. */
export const requestReads = (): RequestReads | undefined => reads.getStore();

/** Forgets everything read in this request (after a write). */
export function forgetReads(): void {
  const current = reads.getStore();
  current?.tokens.clear();
  current?.grants.clear();
  current?.sessions.clear();
}

/** Provider middleware: each request gets its own, empty, reads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function applyRequestReads(provider: any): void {
  provider.use((_ctx: unknown, next: () => Promise<void>) => reads.run({ tokens: new Map(), grants: new Map(), sessions: new Map() }, next));
}
