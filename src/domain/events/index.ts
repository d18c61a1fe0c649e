// THE event vocabulary: every event Keyhold writes, typed per aggregate, with
// its payload. Payloads are JSON: ids are strings, instants ISO-8601 strings.
// The store persists and projects these events; deciders (src/domain/*/decider.ts)
// emit them; nothing here knows how they are stored.
//
// A new event: add its payload to its aggregate's file (./app.ts …), its
// aggregate below in AGGREGATE_OF, its secret fields (if any) in SECRET_FIELDS,
// and a projection in src/store/projections if a read model shows it. The
// compiler then points at every table that must learn the new type.
import type { AppEventPayloads } from './app.js';
import type { IdpEventPayloads, IdpLinkEventPayloads } from './idp.js';
import type { InstanceEventPayloads } from './instance.js';
import type { OrgEventPayloads } from './org.js';
import type { ProjectEventPayloads } from './project.js';
import type { PasskeyEventPayloads } from './passkey.js';
import type { U2fEventPayloads } from './u2f.js';
import type { UserEventPayloads } from './user.js';
import type { UserGrantEventPayloads } from './usergrant.js';

export { INSTANCE_ID } from './instance.js';
export type { MemberAddedPayload, MemberChangedPayload, MemberRemovedPayload } from './members.js';
export type { IdpSettings } from './idp.js';
export type { AppEventPayloads, IdpEventPayloads, IdpLinkEventPayloads, InstanceEventPayloads, OrgEventPayloads, PasskeyEventPayloads, ProjectEventPayloads, U2fEventPayloads, UserEventPayloads, UserGrantEventPayloads };

/** Event payloads by aggregate type: the vocabulary's one source. */
export interface PayloadsByAggregate {
  instance: InstanceEventPayloads;
  org: OrgEventPayloads;
  project: ProjectEventPayloads;
  user: UserEventPayloads;
  app: AppEventPayloads;
  u2f: U2fEventPayloads;
  passkey: PasskeyEventPayloads;
  usergrant: UserGrantEventPayloads;
  idp: IdpEventPayloads;
  idplink: IdpLinkEventPayloads;
}

export type AggregateType = keyof PayloadsByAggregate;
export const AGGREGATE_TYPES: readonly AggregateType[] = ['instance', 'org', 'project', 'user', 'app', 'u2f', 'passkey', 'usergrant', 'idp', 'idplink'];

/** Event type → payload, over every aggregate. */
export type EventPayloads = InstanceEventPayloads &
  OrgEventPayloads &
  ProjectEventPayloads &
  UserEventPayloads &
  AppEventPayloads &
  U2fEventPayloads &
  PasskeyEventPayloads &
  UserGrantEventPayloads &
  IdpEventPayloads &
  IdpLinkEventPayloads;

export type EventTypeName = keyof EventPayloads;
/** The event types of one aggregate type. */
export type EventTypeOf<A extends AggregateType> = keyof PayloadsByAggregate[A] & EventTypeName;
/** The aggregate type an event type belongs to. */
export type AggregateOfType<K extends EventTypeName> = { [A in AggregateType]: K extends keyof PayloadsByAggregate[A] ? A : never }[AggregateType];

/** Which aggregate type each event type belongs to (the store checks it at append). */
export const AGGREGATE_OF: { readonly [K in EventTypeName]: AggregateOfType<K> } = {
  'instance.added': 'instance',
  'instance.member.added': 'instance',
  'instance.login.throttled': 'instance',
  'instance.owners.ended': 'instance',
  'org.added': 'org',
  'org.changed': 'org',
  'org.deactivated': 'org',
  'org.reactivated': 'org',
  'org.removed': 'org',
  'org.member.added': 'org',
  'org.member.changed': 'org',
  'org.member.removed': 'org',
  'org.owner.suspended': 'org',
  'org.login.policy.added': 'org',
  'org.login.policy.changed': 'org',
  'org.lockout.policy.added': 'org',
  'org.lockout.policy.changed': 'org',
  'project.added': 'project',
  'project.member.added': 'project',
  'project.member.changed': 'project',
  'project.member.removed': 'project',
  'project.role.added': 'project',
  'project.changed': 'project',
  'project.deactivated': 'project',
  'project.reactivated': 'project',
  'project.removed': 'project',
  'project.grant.added': 'project',
  'project.grant.changed': 'project',
  'project.grant.deactivated': 'project',
  'project.grant.reactivated': 'project',
  'project.grant.removed': 'project',
  'project.role.changed': 'project',
  'project.role.removed': 'project',
  'user.human.added': 'user',
  'user.machine.added': 'user',
  'user.pat.added': 'user',
  'user.password.changed': 'user',
  'user.password.reset.requested': 'user',
  'user.login.succeeded': 'user',
  'user.password.check.failed': 'user',
  'user.pat.removed': 'user',
  'user.human.changed': 'user',
  'user.deactivated': 'user',
  'user.reactivated': 'user',
  'user.locked': 'user',
  'user.login.throttled': 'user',
  'user.oidc.grant.saved': 'user',
  'user.oidc.grant.revoked': 'user',
  'user.oidc.token.revoked': 'user',
  'user.unlocked': 'user',
  'user.removed': 'user',
  'user.sessions.ended': 'user',
  'user.session.ended': 'user',
  'user.machine.secret.set': 'user',
  'user.machine.secret.removed': 'user',
  'user.recovery.codes.generated': 'user',
  'user.recovery.code.used': 'user',
  'user.recovery.code.check.failed': 'user',
  'user.recovery.codes.removed': 'user',
  'user.factor.removed': 'user',
  'user.metadata.set': 'user',
  'user.metadata.removed': 'user',
  'user.totp.added': 'user',
  'user.totp.verified': 'user',
  'user.totp.removed': 'user',
  'user.totp.used': 'user',
  'user.totp.check.failed': 'user',
  'user.invite.code.added': 'user',
  'user.invite.code.used': 'user',
  'user.invite.code.check.failed': 'user',
  'user.self.registered': 'user',
  'user.email.code.added': 'user',
  'user.email.verified': 'user',
  'user.email.code.check.failed': 'user',
  'app.added': 'app',
  'app.oidc.config.added': 'app',
  'app.oidc.secret.changed': 'app',
  'app.removed': 'app',
  'app.changed': 'app',
  'app.oidc.config.changed': 'app',
  'app.deactivated': 'app',
  'app.reactivated': 'app',
  'app.key.added': 'app',
  'app.key.removed': 'app',
  'app.api.access.changed': 'app',
  'u2f.registration.started': 'u2f',
  'u2f.registration.replaced': 'u2f',
  'u2f.verified': 'u2f',
  'u2f.removed': 'u2f',
  'u2f.renamed': 'u2f',
  'u2f.used': 'u2f',
  'u2f.signcount.refused': 'u2f',
  'passkey.registration.started': 'passkey',
  'passkey.registration.replaced': 'passkey',
  'passkey.verified': 'passkey',
  'passkey.removed': 'passkey',
  'passkey.renamed': 'passkey',
  'passkey.used': 'passkey',
  'passkey.signcount.refused': 'passkey',
  'usergrant.added': 'usergrant',
  'usergrant.cascade.changed': 'usergrant',
  'usergrant.cascade.removed': 'usergrant',
  'usergrant.changed': 'usergrant',
  'usergrant.deactivated': 'usergrant',
  'usergrant.reactivated': 'usergrant',
  'usergrant.removed': 'usergrant',
  'idp.added': 'idp',
  'idp.changed': 'idp',
  'idp.removed': 'idp',
  'idplink.added': 'idplink',
  'idplink.removed': 'idplink',
  'idplink.used': 'idplink',
};

/**
 * Payload fields that hold a secret or a value derived from one (a hash), per
 * event type. Whatever shows events to people (the audit log) leaves
 * these out by this one rule; every event type is listed, so a new one cannot
 * be added without deciding. Not secret: ids, names, challenges (single-use
 * nonces, useless without the authenticator), public keys.
 */
export const SECRET_FIELDS: { readonly [K in EventTypeName]: readonly (keyof EventPayloads[K])[] } = {
  'instance.added': [],
  'instance.member.added': [],
  'instance.login.throttled': [],
  'instance.owners.ended': [],
  'org.added': [],
  'org.changed': [],
  'org.deactivated': [],
  'org.reactivated': [],
  'org.removed': [],
  'org.member.added': [],
  'org.member.changed': [],
  'org.member.removed': [],
  'org.owner.suspended': [],
  'org.login.policy.added': [],
  'org.login.policy.changed': [],
  'org.lockout.policy.added': [],
  'org.lockout.policy.changed': [],
  'project.added': [],
  'project.member.added': [],
  'project.member.changed': [],
  'project.member.removed': [],
  'project.role.added': [],
  'project.changed': [],
  'project.deactivated': [],
  'project.reactivated': [],
  'project.removed': [],
  'project.grant.added': [],
  'project.grant.changed': [],
  'project.grant.deactivated': [],
  'project.grant.reactivated': [],
  'project.grant.removed': [],
  'project.role.changed': [],
  'project.role.removed': [],
  'user.human.added': [],
  'user.machine.added': [],
  'user.pat.added': ['tokenHash'],
  'user.password.changed': ['passwordHash'],
  'user.password.reset.requested': [],
  'user.login.succeeded': [],
  'user.password.check.failed': [],
  'user.pat.removed': [],
  'user.human.changed': [],
  'user.deactivated': [],
  'user.reactivated': [],
  'user.locked': [],
  'user.login.throttled': [],
  'user.oidc.grant.saved': [],
  'user.oidc.grant.revoked': [],
  'user.oidc.token.revoked': [],
  'user.unlocked': [],
  'user.removed': [],
  'user.sessions.ended': [],
  'user.session.ended': [],
  'user.machine.secret.set': ['clientSecretHash'],
  'user.machine.secret.removed': [],
  'user.recovery.codes.generated': ['codeHashes'],
  'user.recovery.code.used': [],
  'user.recovery.code.check.failed': [],
  'user.recovery.codes.removed': [],
  'user.factor.removed': [],
  // Personal data, not a secret: shown as an e-mail address is.
  'user.metadata.set': [],
  'user.metadata.removed': [],
  // The secret is never in an event (sealed in totp_secrets); these name only the TOTP.
  'user.totp.added': [],
  'user.totp.verified': [],
  'user.totp.removed': [],
  'user.totp.used': [],
  'user.totp.check.failed': [],
  // Only the code's hash; the code itself is in the mail or the caller's answer, never stored.
  'user.invite.code.added': ['codeHash'],
  'user.invite.code.used': [],
  'user.invite.code.check.failed': [],
  'user.self.registered': [],
  // Only the code's hash, as the invitation's.
  'user.email.code.added': ['codeHash'],
  'user.email.verified': [],
  'user.email.code.check.failed': [],
  'app.added': [],
  'app.oidc.config.added': ['clientSecretHash'],
  'app.oidc.secret.changed': ['clientSecretHash'],
  'app.removed': [],
  'app.changed': [],
  'app.oidc.config.changed': [],
  'app.deactivated': [],
  'app.reactivated': [],
  'app.key.added': [],
  'app.key.removed': [],
  'app.api.access.changed': [],
  'u2f.registration.started': [],
  'u2f.registration.replaced': [],
  'u2f.verified': [],
  'u2f.removed': [],
  'u2f.renamed': [],
  'u2f.used': [],
  'u2f.signcount.refused': [],
  'passkey.registration.started': [],
  'passkey.registration.replaced': [],
  'passkey.verified': [],
  'passkey.removed': [],
  'passkey.renamed': [],
  'passkey.used': [],
  'passkey.signcount.refused': [],
  'usergrant.added': [],
  'usergrant.cascade.changed': [],
  'usergrant.cascade.removed': [],
  'usergrant.changed': [],
  'usergrant.deactivated': [],
  'usergrant.reactivated': [],
  'usergrant.removed': [],
  'idp.added': [],
  'idp.changed': [],
  'idp.removed': [],
  'idplink.added': [],
  'idplink.removed': [],
  'idplink.used': [],
};

/** An event's payload without its secret fields (SECRET_FIELDS). */
export function withoutSecrets<K extends EventTypeName>(type: K, payload: EventPayloads[K]): Partial<EventPayloads[K]> {
  const secret: readonly PropertyKey[] = SECRET_FIELDS[type];
  if (secret.length === 0) return payload;
  return Object.fromEntries(Object.entries(payload).filter(([field]) => !secret.includes(field))) as Partial<EventPayloads[K]>;
}

/** An event to append, of one specific type. */
export interface NewEventOf<K extends EventTypeName> {
  aggregateType: AggregateOfType<K>;
  aggregateId: string;
  type: K;
  payload: EventPayloads[K];
  /** The org that owns the object. */
  resourceOwner: string;
  /** The user who caused the change. */
  creator: string;
}

/** An event as stored: per-aggregate sequence, commit timestamp, global position. */
export interface StoredEventOf<K extends EventTypeName> extends NewEventOf<K> {
  sequence: number;
  createdAt: Date;
  position: bigint;
}

/** Any new event (of the given types); narrowing on `type` narrows `payload`. */
export type NewEvent<K extends EventTypeName = EventTypeName> = { [T in K]: NewEventOf<T> }[K];
/** Any stored event (of the given types); narrowing on `type` narrows `payload`. */
export type StoredEvent<K extends EventTypeName = EventTypeName> = { [T in K]: StoredEventOf<T> }[K];

/** The aggregate version a command decided against: its current sequence, 0 when new. */
export interface ExpectedSequence {
  aggregateType: AggregateType;
  aggregateId: string;
  sequence: number;
}

/** One aggregate's key in in-memory maps (ids may contain any printable character, so a NUL separates). */
export const aggregateKey = (aggregateType: string, aggregateId: string): string => `${aggregateType}\u0000${aggregateId}`;

/** The sequence of a history's last event; 0 for an aggregate with no events. */
export const lastSequence = (history: readonly { sequence: number }[]): number => (history.length ? history[history.length - 1]!.sequence : 0);
