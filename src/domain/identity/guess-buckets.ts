// Which budgets a guess at the login spends (the rules:
// attempt-budget.ts; the store: src/store/attempt-budgets.ts).
//
// A password try, by who tries it:
// - a known browser of the account (src/server/oidc/known-browser.ts: it signed in to this
//   account before): its own bucket for the account only. Nobody else's
//   failures reach it, so the right user keeps getting in whatever others try.
// - any other client: the account and its address (one guesser), the account
//   for all such clients together (guessing from many addresses), and the
//   address whatever the account (spraying).
// - and, when the user's org has a lockout policy, the policy's bucket: the
//   checks in flight count against it.
// A name nobody holds has buckets of its own under the typed name (its key),
// so trying one behaves as trying an account does.
// A device's user code: the browser session, and the address unless a known
// browser types it (userCodeBuckets).
// An address is its bucket's key as address-key.ts says: an
// IPv4 host, an IPv6 /64.
import { addressBucketKey } from './address-key.js';
import type { BucketRequest } from './attempt-budget.js';
import { usernameKey } from './identifiers.js';

/** Who guesses: a browser that signed in to the account before (its known-browser id), and the address the request came from. */
export interface GuessClient {
  address: string;
  knownBrowser?: string;
}

/** The account a login guesses at: the user a name named, or the typed name when it names nobody. */
export const accountOf = (userId: string | undefined, loginName: string): string => (userId ? `user ${userId}` : `name ${usernameKey(loginName)}`);

const clientOf = (client: GuessClient) => (client.knownBrowser ? `known ${client.knownBrowser}` : `address ${addressBucketKey(client.address)}`);

export function passwordBuckets(account: string, client: GuessClient, lockout?: { userId: string; maxAttempts: number }): BucketRequest[] {
  const policy: BucketRequest[] = lockout && lockout.maxAttempts > 0 ? [{ kind: 'lockout', ...lockout }] : [];
  if (client.knownBrowser) return [{ kind: 'password.account.client', key: `${account} ${clientOf(client)}` }, ...policy];
  return [
    { kind: 'password.account.client', key: `${account} ${clientOf(client)}` },
    { kind: 'password.account', key: account },
    { kind: 'password.address', key: addressBucketKey(client.address) },
    ...policy,
  ];
}

/** A recovery code (after the right password): the account and client, and the address unless a known browser types it. */
export function recoveryBuckets(userId: string, client: GuessClient): BucketRequest[] {
  const own: BucketRequest = { kind: 'recovery.account.client', key: `user ${userId} ${clientOf(client)}` };
  return client.knownBrowser ? [own] : [own, { kind: 'recovery.address', key: addressBucketKey(client.address) }];
}

/**
 * A user code typed on the device sign-in page: the browser session's bucket,
 * and the address's — unless the browser is known to an account (it signed in
 * to one before), whose bucket it spends instead, so a neighbour at a shared
 * address cannot stop it. That bucket is the account's, not the browser id's:
 * each sign-in mints a new id, and would mint a new budget. A success clears
 * none of them: anyone can request codes.
 */
export function userCodeBuckets(session: string, client: { address: string; knownTo?: string }): BucketRequest[] {
  const own: BucketRequest = { kind: 'usercode.session', key: session };
  return [own, client.knownTo ? { kind: 'usercode.known', key: `user ${client.knownTo}` } : { kind: 'usercode.address', key: addressBucketKey(client.address) }];
}

/**
 * An invitation code: the user's bucket, and the client's — the address of a
 * browser at the invitation page, or the authenticated caller of VerifyInviteCode
 * (a login UI of its own, whose users' addresses Keyhold does not see).
 */
export function inviteBuckets(userId: string, client: { address: string } | { callerId: string }): BucketRequest[] {
  const key = 'address' in client ? addressBucketKey(client.address) : `caller ${client.callerId}`;
  return [
    { kind: 'invite.user', key: `user ${userId}` },
    { kind: 'invite.address', key },
  ];
}

/** An address-verification code: the user's bucket, and the client's (a browser's address, or the API caller). */
export function emailCodeBuckets(userId: string, client: { address: string } | { callerId: string }): BucketRequest[] {
  const key = 'address' in client ? addressBucketKey(client.address) : `caller ${client.callerId}`;
  return [
    { kind: 'email.user', key: `user ${userId}` },
    { kind: 'email.address', key },
  ];
}
