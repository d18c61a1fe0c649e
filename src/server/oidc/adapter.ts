// oidc-provider's adapter: every model it stores goes to the database through
// the store's port (src/store/oidc-store.ts); the Client model is read from the
// apps' read model at each lookup (clients.ts).
//
// Device codes (RFC 8628): the store keys them by hash like every bearer
// artifact, but the library finds a code by its user code and then saves it
// under its id again — so the id travels with the row sealed (AES-256-GCM under
// a key derived from the master key), as it does in the login's Interaction.
// And a device code stays stored DEVICE_CODE_GRACE_SECONDS past its expiry, so
// a device polling late is told `expired_token`, not `invalid_grant`.
//
// Every row names the user it belongs to (the store's account_id), so that
// the user's sessions end in one delete (store/projections/oidc-sessions.ts);
// a machine user's client-credentials tokens name the machine user, and a
// sign-in in flight (Interaction) its user once it proved the password (or
// runs in the user's session) — so a login held open across the end (its
// resume link, its password-change form) finishes nothing. And a
// session is ended where it is read when its user is no longer active
// (locked, deactivated, removed) or its sign-in is older than the user's
// sessions' end (saved again by a request in flight at that moment): the
// browser is asked to sign in again.
import Provider, { errors } from 'oidc-provider';
import type { IncomingMessage } from 'node:http';
import { describeDevice } from '../../domain/user/device.js';
import { userIsLive, type ReadModel, type UserView } from '../../queries/read-model.js';
import type { OidcPayload, OidcStateStore } from '../../store/oidc-store.js';
import { clientMetadata, UnsupportedClient, usesAppKeys } from './clients.js';
import { seal, unseal } from './keys.js';
import { MACHINE_CLIENT_ID_PREFIX } from '../../commands/users/machine-secret.js';
import { machineClientMetadata } from './machine-clients.js';
import { noteDeletedGrant } from './revoked-grants.js';
import { answerReplay, goneAnswer, noteTaken, saveCondition, takenHere, takenWhenFound } from './single-use.js';
import { asPresented, rotate, withRotation } from './refresh-rotation.js';
import { asLoginState, ownerOf } from '../../login/state.js';
import { forgetReads, lookedUpTogether, requestReads } from './request-reads.js';
import { copyPayload } from './payload-copy.js';

/** What the adapter reads: apps, machine users' client credentials and apps' keys. */
export type ClientReads = Pick<ReadModel, 'appByClientId' | 'machineByClientId' | 'liveAppKeys'>;

/** How long an expired device code is kept, to answer `expired_token` (RFC 8628 §3.5). */
export const DEVICE_CODE_GRACE_SECONDS = 600;

const SEALED_ID = 'keyholdSealedId';
const SEALED_DEVICE_CODE = 'keyholdSealedDeviceCode';

/**
 * The name of the field of `value` (at any depth) whose name or text contains
 * U+0000, or undefined when none does; `at` names `value` itself.
 */
export function nulField(value: unknown, at = 'value'): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (Array.isArray(value)) return value.reduce<string | undefined>((found, v) => found ?? nulField(v, at), undefined);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = k.includes('\u0000') ? at : nulField(v, k);
      if (found) return found;
    }
  }
  return undefined;
}

/** Refuses `value` as the client's error (invalid_request naming the field) when a field of it holds U+0000 (nulField). */
export function refuseNul(value: unknown, at?: string): void {
  const nul = nulField(value, at);
  if (nul) throw new errors.InvalidRequest(`${nul}: contains the NUL character (U+0000)`);
}

/**
 * The user a sign-in in flight belongs to: the login it finished with, the
 * user the login's state names once the password was right (src/login/state.ts
 * ownerOf), or the browser's session. A name merely typed makes it nobody's: a
 * stranger's sign-in at someone's name ends with nothing of theirs.
 */
export function interactionOwner(payload: OidcPayload): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const p = payload as any;
  const named = [p.result?.login?.accountId, ownerOf(asLoginState(p.result?.keyhold)), p.session?.accountId];
  return named.find((id): id is string => typeof id === 'string');
}

/** Whether this request is the sign-out at end_session destroying its session whole (not an old id of it). */
function signedOutHere(id: string): boolean {
  const ctx = (Provider as unknown as { ctx?: { oidc?: { route?: string; session?: { id?: string } } } }).ctx;
  return String(ctx?.oidc?.route ?? '').startsWith('end_session') && ctx?.oidc?.session?.id === id;
}

/** Whether a session's user may still be signed in: a human user, active (account.ts findAccount's rule). */
const activeHuman = (user: UserView | undefined) => user?.kind === 'human' && userIsLive(user);

export interface AdapterOptions {
  /**
   * How long a pushed authorization request is kept past its expiry: as long
   * as a login started with it may run, so the code's issue finds it used by
   * another (one code per request_uri; pushed-requests.ts).
   */
  pushedRequestGraceSeconds?: number;
  /**
   * Who sent a request: its address through the trusted proxies and its
   * User-Agent (http/app.ts) — what a login session is recognised by on the
   * account page. None: sessions are noted without them.
   */
  clientOf?: (req: IncomingMessage) => { address?: string; userAgent?: string };
}

/** A saved session's apps: client id → the sid the app knows and the session's grant for it. */
function sessionApps(payload: OidcPayload): Record<string, { sid: string; grantId?: string }> {
  const out: Record<string, { sid: string; grantId?: string }> = {};
  const authorizations = (payload.authorizations ?? {}) as Record<string, { sid?: unknown; grantId?: unknown }>;
  for (const [clientId, a] of Object.entries(authorizations)) {
    if (typeof a?.sid === 'string') out[clientId] = { sid: a.sid, ...(typeof a.grantId === 'string' ? { grantId: a.grantId } : {}) };
  }
  return out;
}

export function adapterClass(store: OidcStateStore, read: ClientReads & Pick<ReadModel, 'user'>, sealKey: Buffer, options: AdapterOptions = {}) {
  const pushedGrace = Math.max(0, options.pushedRequestGraceSeconds ?? 0);
  /** The session as its user sees it (store user_sessions), noted beside the provider's row. */
  const noteSession = (payload: OidcPayload, expiresIn: number | undefined) => {
    if (typeof payload.accountId !== 'string' || typeof payload.uid !== 'string') return undefined;
    const req = (Provider as unknown as { ctx?: { req?: IncomingMessage } }).ctx?.req;
    const client = req && options.clientOf ? options.clientOf(req) : {};
    return store.noteSession({
      uid: payload.uid,
      userId: payload.accountId,
      device: describeDevice(client.userAgent),
      address: client.address ?? '',
      apps: sessionApps(payload),
      ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
    });
  };
  /** The stored form: no device code in clear. */
  const sealed = (model: string, id: string, payload: OidcPayload): OidcPayload => {
    if (model === 'DeviceCode') return { ...payload, [SEALED_ID]: seal(sealKey, id) };
    if (model === 'Interaction' && typeof payload.deviceCode === 'string') {
      const { deviceCode, ...rest } = payload;
      return { ...rest, [SEALED_DEVICE_CODE]: seal(sealKey, deviceCode as string) };
    }
    return payload;
  };
  /** The library's form again. */
  const opened = (payload: OidcPayload | undefined): OidcPayload | undefined => {
    if (!payload) return payload;
    const { [SEALED_ID]: id, [SEALED_DEVICE_CODE]: deviceCode, ...rest } = payload;
    if (typeof id === 'string') rest.jti = unseal(sealKey, id, 'device code');
    if (typeof deviceCode === 'string') rest.deviceCode = unseal(sealKey, deviceCode, 'device code');
    return rest as OidcPayload;
  };

  /** A sign-in in a second before the user's sessions ended (strictly: one in that second may be the new sign-in) is over. */
  // And a session ended on its own (end one, end the others: user_sessions.ended_at) is over even
  // when a request in flight saved it again; the one kept when the others ended stays.
  const sessionMayStay = async (accountId: string, loginTs: unknown, uid: unknown): Promise<boolean> => {
    const [user, ended, ownEnd] = await Promise.all([read.user(accountId), store.sessionsEnded(accountId), typeof uid === 'string' ? store.sessionEnded(uid) : false]);
    const signedInAt = typeof loginTs === 'number' ? loginTs : 0;
    const kept = ended?.keep !== undefined && ended.keep === uid;
    return activeHuman(user) && !ownEnd && (ended === undefined || kept || signedInAt >= Math.floor(ended.at / 1000));
  };

  /**
   * A stored row as `store.find` would answer it, from this request's reads
   * when it has them (request-reads.ts): a token under any token model with its
   * grant and its session in one statement, that grant and session without one.
   */
  const stored = async (model: string, id: string): Promise<OidcPayload | undefined> => {
    const memo = requestReads();
    // Copies: the library's models take a payload's objects as their own.
    if (memo && model === 'Grant' && memo.grants.has(id)) return copyPayload(memo.grants.get(id));
    const models = memo && lookedUpTogether(model);
    if (!memo || !models) return store.find(model, id);
    const key = `${models[0]}:${id}`;
    let lookup = memo.tokens.get(key);
    if (!lookup) {
      lookup = store.findToken(id, models);
      memo.tokens.set(key, lookup);
      // Its grant, for the library's next lookup (a write in between forgets it).
      void lookup.then(
        (rows) => {
          if (memo.tokens.get(key) !== lookup) return;
          for (const row of rows) {
            if (row.grantId !== undefined) memo.grants.set(row.grantId, row.grant);
            if (row.sessionUid !== undefined) memo.sessions.set(row.sessionUid, row.session);
          }
        },
        () => memo.tokens.delete(key),
      );
    }
    const rows = await lookup;
    const row = rows.find((r) => r.model === model);
    return row && copyPayload(row.payload);
  };

  return class KeyholdAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') return;
      forgetReads();
      if (this.model === 'Interaction') takenHere(id, true);
      // A client assertion's jti (private_key_jwt): the library looks it up and then
      // saves it; two processes could both find nothing, so the save itself refuses a live one.
      if (this.model === 'ReplayDetection') {
        if (!(await store.insertNew(this.model, id, payload, expiresIn ?? 60))) throw new errors.InvalidClientAuth('client assertion tokens must only be used once');
        return;
      }
      // A client's parameters (nonce, state, login_hint, …) travel in what is stored; the database
      // cannot hold U+0000 in JSON, and it is in no legitimate value: refused as the client's error.
      refuseNul(payload);
      const grace = this.model === 'DeviceCode' ? DEVICE_CODE_GRACE_SECONDS : this.model === 'PushedAuthorizationRequest' ? pushedGrace : 0;
      const keep = grace > 0 && expiresIn !== undefined ? Math.max(expiresIn, 0) + grace : expiresIn;
      // A machine's client-credentials token has no account: it belongs to the machine user.
      const machineUser = this.model === 'ClientCredentials' && typeof payload.clientId === 'string' ? (await read.machineByClientId(payload.clientId))?.userId : undefined;
      const owner = machineUser ?? (this.model === 'Interaction' ? interactionOwner(payload) : undefined);
      // A one-time step (single-use.ts): stored only while the stored record is where this request found it.
      const condition = saveCondition(this.model, payload);
      // A rotation's new refresh token names the token it replaces (refresh-rotation.ts).
      if (this.model === 'RefreshToken') payload = withRotation(payload);
      if (this.model === 'Session') {
        await store.upsert(this.model, id, payload, keep, owner);
        await noteSession(payload, keep);
        return;
      }
      if (!condition) return store.upsert(this.model, id, sealed(this.model, id, payload), keep, owner);
      if (!(await store.replaceIf(this.model, id, sealed(this.model, id, payload), keep, condition.expected, owner))) throw condition.refused();
    }

    async find(id: string): Promise<OidcPayload | undefined> {
      // Nothing is stored under an id with U+0000 (upsert refuses it), and the database refuses
      // it in a query: a client_id or token like that is simply unknown.
      if (id.includes('\u0000')) return undefined;
      if (this.model === 'Client') {
        // A machine user's client credentials, while it is active. Their client ids
        // carry a prefix no app's id has, so each kind costs one read (the client is read on
        // every token, introspection and revocation request).
        const machineClient = async () => {
          const machine = await read.machineByClientId(id);
          return machine?.state === 'active' ? (machineClientMetadata(machine) as OidcPayload) : undefined;
        };
        if (id.startsWith(MACHINE_CLIENT_ID_PREFIX)) return machineClient();
        const app = await read.appByClientId(id);
        if (!app) return machineClient();
        // A deactivated app (DeactivateApp) is no client until it is reactivated: unknown to the provider.
        if (app.state !== 'active') return undefined;
        try {
          const keys = usesAppKeys(app) ? await read.liveAppKeys(app.id, new Date()) : [];
          return clientMetadata(app, keys) as OidcPayload | undefined;
        } catch (e) {
          if (e instanceof UnsupportedClient) throw new errors.InvalidClient(e.description);
          throw e;
        }
      }
      // The resume's read of its interaction takes it (single-use.ts).
      const resume = takenWhenFound(this.model);
      if (resume) {
        forgetReads();
        const taken = opened(await store.take(this.model, id, resume.account));
        if (taken) noteTaken(id);
        // Not taken: gone, or finished as another account than the browser's (read as it is).
        return taken ?? opened(await stored(this.model, id));
      }
      const found = opened(await stored(this.model, id));
      if (this.model === 'RefreshToken') return asPresented(id, found);
      if (this.model === 'Session' && typeof found?.accountId === 'string' && !(await sessionMayStay(found.accountId, found.loginTs, found.uid))) {
        // The library would carry the account on without its grant (a 500 at every authorization
        // request); unknown, the session is a new one and the login is shown.
        await store.destroy(this.model, id);
        return undefined;
      }
      return found;
    }

    async findByUid(uid: string) {
      if (uid.includes('\u0000')) return undefined;
      // The session a token this request just read names (request-reads.ts), read with it.
      const memo = requestReads();
      if (this.model === 'Session' && memo?.sessions.has(uid)) return opened(copyPayload(memo.sessions.get(uid)));
      return opened(await store.findByUid(this.model, uid));
    }

    async findByUserCode(userCode: string) {
      return userCode.includes('\u0000') ? undefined : opened(await store.findByUserCode(this.model, userCode));
    }

    /** Exactly one request consumes a record; any other is its replay (single-use.ts answerReplay throws). */
    async consume(id: string): Promise<void> {
      forgetReads();
      // A refresh token's rotation may redo one a fault left unfinished (refresh-rotation.ts).
      const taken = this.model === 'RefreshToken' ? await rotate(store, id) : await store.consume(this.model, id);
      if (!taken) await answerReplay(store, this.model, id);
    }

    async destroy(id: string): Promise<void> {
      forgetReads();
      if (this.model === 'Interaction' && takenHere(id)) return;
      const deleted = await store.destroy(this.model, id);
      // A session the provider ended at the sign-out (end_session): it told the apps itself. Not a
      // session saved under a new id (at a login, or a sign-out from one app only): its old id goes
      // too, with the same uid, and the session goes on.
      if (deleted && this.model === 'Session' && typeof deleted.uid === 'string' && signedOutHere(id)) await store.sessionLoggedOut(deleted.uid);
      // Whose grant this was, for the audit of its revocation (revoked-grants.ts).
      if (deleted && this.model === 'Grant') noteDeletedGrant(id, deleted);
      // A one-time record (the interaction at its resume): the request that did not delete it does not go on.
      const answer = deleted ? undefined : goneAnswer(this.model);
      if (answer) throw answer;
    }

    revokeByGrantId(grantId: string) {
      forgetReads();
      return store.revokeByGrantId(grantId);
    }
  };
}
