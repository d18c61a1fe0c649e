// What commands need from outside, as small interfaces (hexagonal "ports").
// src/store implements the event store and the lookups; src/server wires the
// clock, ids, secrets and the WebAuthn verifier. Commands never see a database
// handle, SQL or drizzle: swapping the storage changes nothing here.
import type { AggregateType, ExpectedSequence, NewEvent, StoredEvent } from '../domain/events/index.js';
import type { AttemptOutcome, BucketRequest, CountedBucket } from '../domain/identity/attempt-budget.js';
import type { RegistrationVerificationInput, RegistrationVerificationResult } from '../domain/webauthn/index.js';
import type { Clock } from '../domain/clock.js';
import type { Lookups } from '../access/lookups.js';

// The read port and the facts it answers live under the access checks (src/access/), which
// commands and queries both stand on; the clock is a domain type. Re-exported: a command's
// ports are one import.
export type { Lookups, PasskeyFacts, PasswordFacts, U2fFacts, UserFacts } from '../access/lookups.js';
export type { Clock } from '../domain/clock.js';

/** Events of aggregates: load one's history, append new events with optimistic concurrency. */
export interface EventStore {
  /** The aggregate's events in sequence order; [] for an aggregate that does not exist. */
  load(aggregateType: AggregateType, aggregateId: string): Promise<StoredEvent[]>;
  /** The aggregate's events after `sequence`, in sequence order (a kept fold's tail: ./folded-states.ts). */
  loadAfter?(aggregateType: AggregateType, aggregateId: string, sequence: number): Promise<StoredEvent[]>;
  /**
   * Append `events` in one transaction and project them into the read models.
   * Each event's aggregate needs an entry in `expected` (its current sequence,
   * 0 when new); its events get sequence+1, +2, … in the given order.
   * Expectations for aggregates that receive no event are not checked.
   *
   * Rejects with ConcurrencyConflict when another writer got there first,
   * UniqueViolation when a read-model unique index refuses the change, and a
   * storage error (DatabaseUnavailable, StorageUnavailable) when the database
   * cannot take it. On any rejection nothing is written.
   */
  append(events: readonly NewEvent[], expected: readonly ExpectedSequence[]): Promise<StoredEvent[]>;
  /**
   * Calls `listener` with the events of every append of this store, right after
   * its commit (e.g. to drop caches the events make stale). Returns an unsubscribe.
   */
  onAppended?(listener: (events: readonly StoredEvent[]) => void): () => void;
}

/**
 * An event store that also keeps this process's copies of some aggregates'
 * histories (./recent-copies.ts). A copy may be behind the database, never
 * ahead of it; the runner (./run.ts) uses one only on the way to a write the
 * append then checks.
 */
export interface CopyingEventStore extends EventStore {
  copyOf(aggregateType: AggregateType, aggregateId: string): readonly StoredEvent[] | undefined;
}

/** Another writer appended to one of the aggregates first; the runner decides again on a fresh load. */
export class ConcurrencyConflict extends Error {
  override readonly name = 'ConcurrencyConflict';
  constructor(message = 'the aggregate was changed concurrently') {
    super(message);
  }
}

/** A read-model unique index refused an append; `constraint` names it (e.g. `apps_project_name_key`). */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
  constructor(readonly constraint: string) {
    super(`unique constraint ${constraint} violated`);
  }
}

/**
 * A read-model reference refused the append (foreign key `constraint`):
 * `removing` — the referenced row (an org) still has rows created meanwhile;
 * else the new row names one that is gone (removed meanwhile).
 */
export class ReferenceViolation extends Error {
  override readonly name = 'ReferenceViolation';
  /** `key`: the referenced row's id (the org's), as the database names it. */
  constructor(readonly constraint: string, readonly removing: boolean, readonly key = '') {
    super(`reference ${constraint} violated`);
  }
}


export interface Ids {
  /** A fresh object id (domain/ids.ts). */
  newId(): string;
}

/** Secrets shown once and stored only as hashes, and WebAuthn challenges. */
export interface Secrets {
  /** A client secret for a BASIC/POST OIDC app, and its stored hash. */
  clientSecret(): { secret: string; hash: string };
  /** A key pair for a private_key_jwt app (AddAppKey): the private key as PKCS#8 PEM (shown once) and the public JWK (stored). */
  appKeyPair(): Promise<{ privateKeyPem: string; publicJwk: { kty: string; n: string; e: string } }>;
  /** A personal access token, and its stored hash. */
  personalAccessToken(): { token: string; hash: string };
  /** A fresh WebAuthn challenge (32 random bytes). */
  challenge(): Uint8Array;
  /** The stored form of a password (argon2id, domain/identity/passwords.ts), computed off the event loop. */
  passwordHash(password: string): Promise<string>;
}

/** Verifies a WebAuthn registration response (domain/webauthn), possibly on a worker thread. */
export type RegistrationVerifier = (input: RegistrationVerificationInput) => Promise<RegistrationVerificationResult>;

/** WebAuthn settings of this server, fixed once it listens (its port may be part of the default origin). */
export interface WebAuthnSettings {
  readonly rpIds: readonly string[];
  readonly rpName: string;
  readonly origins: readonly string[];
  readonly attestation: 'none' | 'direct';
  readonly timeoutMs: number;
  readonly maxPendingPerUser: number;
}

/**
 * TOTP secrets (src/store/totp-secrets.ts): each sealed at rest under a key
 * derived from the master key, in a table of their own — never in an event,
 * a log line, an error or a cache. Commands hand over and get back plain bytes.
 */
/** Identity providers' client secrets, sealed (store/idp-secrets.ts); never in an event, never answered by the API. */
export interface IdpSecretStore {
  /** Stores (or replaces) the provider's client secret (before its idp.* event: a refused write leaves a row no provider has, deleted by nothing that matters: it opens for no other id). */
  put(idpId: string, secret: string): Promise<void>;
  /** The secret, opened, for one exchange with the upstream; undefined: none set. */
  get(idpId: string): Promise<string | undefined>;
  /** Whether one is set (what the API answers in its place). */
  has(idpId: string): Promise<boolean>;
}

export interface TotpSecretStore {
  /** Stores a new TOTP's secret (before its user.totp.added event: the event's projection then drops the one it replaces). */
  put(totpId: string, userId: string, secret: Uint8Array): Promise<void>;
  /** The secret and the newest time step accepted so far, or undefined (none, or removed). */
  get(totpId: string): Promise<{ secret: Buffer; lastStep: number } | undefined>;
  /**
   * Records `step` as accepted if it is newer than every step accepted
   * before — one conditional update, so of concurrent or repeated uses of one
   * code exactly one gets true.
   */
  claimStep(totpId: string, step: number): Promise<boolean>;
  /** Deletes a secret whose event was never written (a refused registration). */
  drop(totpId: string): Promise<void>;
}

/** What the TOTP commands need beyond the common ports; made once the master key is loaded and the issuer known. */
export interface TotpPorts {
  /** The otpauth:// label's issuer: the instance's host (KEYHOLD_ISSUER's), never a request header. */
  readonly issuer: string;
  readonly secrets: TotpSecretStore;
}

/** What the invitation commands need beyond the common ports (the guessing budgets their codes are checked in). */
export interface InvitePorts {
  readonly budgets: GuessBudgets;
}

/** Everything a command may use. */
export interface Ports {
  events: EventStore;
  lookups: Lookups;
  clock: Clock;
  ids: Ids;
  secrets: Secrets;
  verifyRegistration: RegistrationVerifier;
  /** Read per call: the settings are made once the server listens (src/server/start.ts), then never change. */
  webauthn: () => WebAuthnSettings;
  /** Read per call: made when the server listens (src/server/start.ts), then never changes. */
  totp: () => TotpPorts;
  /** Read per call: made when the server listens (src/server/start.ts). */
  invite: () => InvitePorts;
  /** Identity providers' sealed client secrets; absent where nothing configures providers (then their commands are unavailable). */
  idpSecrets?: () => IdpSecretStore;
  /** One-time codes sent by mail (a forgotten password's link); absent where nothing issues them. */
  emailCodes?: EmailCodes;
}

/** A counted bucket after its attempt finished: its failures now (the one that reaches the free allowance engages the delays). */
export interface FinishedBucket {
  kind: CountedBucket;
  failures: number;
}

export interface Reservation {
  ok: true;
  /** Ends the attempt (once): the place given back, the outcome counted. */
  finish(outcome: AttemptOutcome): Promise<FinishedBucket[]>;
}

export type ReserveResult = Reservation | { ok: false; waitSeconds: number };

/** The guessing budgets a login's guess is reserved in before it is checked (store/attempt-budgets.ts). */
export interface GuessBudgets {
  /** One attempt in every bucket named, or in none: the reservation to finish, or how long to wait. */
  reserve(buckets: readonly BucketRequest[]): Promise<ReserveResult>;
}

/** What a mailed one-time code is for. */
export type EmailCodePurpose = 'reset' | 'verify';

/**
 * One-time codes sent by mail (store/email-codes.ts). Only a hash of the code
 * reaches it. `use` is a conditional update under a lock on the user: of
 * requests racing with the user's codes, exactly one gets its owner back.
 */
/** A code's user and the address it went to; `createdBy`: who had it made for the user (absent: asked for at the login). */
export interface EmailCodeOwner {
  userId: string;
  email: string;
  createdBy?: string;
}

export interface EmailCodes {
  /** Records a new code; the user's older unused codes keep working. False (nothing recorded) when `perWindow` codes were already issued within `windowSeconds`. */
  issue(input: { purpose: EmailCodePurpose; codeHash: string; userId: string; email: string; ttlSeconds: number; perWindow: number; windowSeconds: number; createdBy?: string }): Promise<boolean>;
  /** Whose the code is while it is unused and unexpired (and who had it made for the user, if someone did), without using it. */
  peek(purpose: EmailCodePurpose, codeHash: string): Promise<EmailCodeOwner | undefined>;
  /** Uses the code and with it every other unused code of its user for the purpose: the owner to exactly one caller among all racing with any of them, undefined to every other and for an unknown, used or expired code. */
  use(purpose: EmailCodePurpose, codeHash: string): Promise<EmailCodeOwner | undefined>;
  /** Deletes expired rows, at most `limit`; resolves with how many. */
  deleteExpired(limit: number): Promise<number>;
  /** Counts them, at most `limit` (the housekeeping sweep's backlog). */
  countExpired(limit: number): Promise<number>;
}
