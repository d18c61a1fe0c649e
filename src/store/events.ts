// Every event type Keyhold writes, with its payload shape, in one place.
// Payloads are JSON: ids are strings, instants are ISO-8601 strings.

export const AggregateType = {
  instance: 'instance',
  org: 'org',
  project: 'project',
  user: 'user',
  app: 'app',
  u2f: 'u2f',
} as const;
export type AggregateType = (typeof AggregateType)[keyof typeof AggregateType];

/** One aggregate's key in in-memory maps (ids may contain any printable character, so a NUL separates). */
export const aggregateKey = (aggregateType: string, aggregateId: string): string => `${aggregateType}\u0000${aggregateId}`;

/** The sequence of a history's last event; 0 for an aggregate with no events. */
export const lastSequence = (history: readonly { sequence: number }[]): number => (history.length ? history[history.length - 1]!.sequence : 0);

/** The id of the one instance aggregate. Its `instance.added` at sequence 1 marks bootstrap. */
export const INSTANCE_ID = 'default';

export const EventType = {
  instanceAdded: 'instance.added',
  instanceMemberAdded: 'instance.member.added',
  orgAdded: 'org.added',
  orgMemberAdded: 'org.member.added',
  projectAdded: 'project.added',
  projectMemberAdded: 'project.member.added',
  humanUserAdded: 'user.human.added',
  machineUserAdded: 'user.machine.added',
  patAdded: 'user.pat.added',
  appAdded: 'app.added',
  oidcConfigAdded: 'app.oidc.config.added',
  oidcSecretChanged: 'app.oidc.secret.changed',
  appRemoved: 'app.removed',
  u2fRegistrationStarted: 'u2f.registration.started',
  u2fVerified: 'u2f.verified',
  u2fRemoved: 'u2f.removed',
} as const;

export interface MemberAddedPayload {
  userId: string;
  roles: string[];
}

/** Event type → payload. */
export interface EventPayloads {
  'instance.added': { defaultOrgId: string };
  'instance.member.added': MemberAddedPayload;
  'org.added': { name: string };
  'org.member.added': MemberAddedPayload;
  'project.added': { name: string };
  'project.member.added': MemberAddedPayload;
  'user.human.added': {
    username: string;
    givenName: string;
    familyName: string;
    displayName: string;
    email: string;
  };
  'user.machine.added': { username: string; name: string; description: string };
  'user.pat.added': { tokenId: string; tokenHash: string; expiresAt: string | null };
  'app.added': { projectId: string; name: string };
  'app.oidc.config.added': {
    clientId: string;
    clientSecretHash: string | null;
    config: Record<string, unknown>;
  };
  'app.oidc.secret.changed': { clientSecretHash: string };
  'app.removed': { projectId: string };
  'u2f.registration.started': { userId: string; rpId: string; challenge: string; expiresAt: string };
  'u2f.verified': {
    userId: string;
    tokenName: string;
    /** base64url */
    credentialId: string;
    /** base64url COSE key */
    publicKey: string;
    algorithm: number;
    format: string;
    aaguid: string;
    signCount: number;
    transports: string[];
    backupEligible: boolean;
    backedUp: boolean;
    userVerified: boolean;
    rpId: string;
  };
  'u2f.removed': { userId: string };
}

export type EventTypeName = keyof EventPayloads;

/** Which aggregate type each event type belongs to (checked at append). */
export const aggregateOf: { [K in EventTypeName]: AggregateType } = {
  'instance.added': 'instance',
  'instance.member.added': 'instance',
  'org.added': 'org',
  'org.member.added': 'org',
  'project.added': 'project',
  'project.member.added': 'project',
  'user.human.added': 'user',
  'user.machine.added': 'user',
  'user.pat.added': 'user',
  'app.added': 'app',
  'app.oidc.config.added': 'app',
  'app.oidc.secret.changed': 'app',
  'app.removed': 'app',
  'u2f.registration.started': 'u2f',
  'u2f.verified': 'u2f',
  'u2f.removed': 'u2f',
};

/** An event to append, of one specific type. */
export interface NewEventOf<K extends EventTypeName> {
  aggregateType: AggregateType;
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

/** Any new event; narrowing on `type` narrows `payload`. */
export type NewEvent = { [K in EventTypeName]: NewEventOf<K> }[EventTypeName];
/** Any stored event; narrowing on `type` narrows `payload`. */
export type StoredEvent = { [K in EventTypeName]: StoredEventOf<K> }[EventTypeName];

/** The aggregate version a command decided against: its current sequence, 0 when new. */
export interface ExpectedSequence {
  aggregateType: AggregateType;
  aggregateId: string;
  sequence: number;
}
