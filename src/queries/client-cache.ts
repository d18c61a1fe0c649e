// The OpenID Provider reads its client — an app, or a machine user's client
// credentials — on every token, introspection, revocation and userinfo request,
// and 8 times in one password login (counted on the store's client). Those
// reads are cached here (./fresh-cache.ts: found clients only, so a new app
// works at once everywhere; each entry trusted for CLIENT_TTL_MS; this
// process's own changes to an app or a machine user clear it at once).
//
// What another process changes (RemoveApp, DeactivateApp, DeactivateProject, DeactivateOrg, a
// project's login checks, a new secret, a deactivated machine user) shows here within CLIENT_TTL_MS — the same bound
// as a PAT's caller (./callers.ts). An app's keys (private_key_jwt) are not
// cached: they are read with the time of each request, as keys expire.
//
// Measured (bench, PostgreSQL, c=64, paired runs on one machine, before →
// after): client_credentials 3,454 → 4,045/s, introspection 2,068 → 2,480,
// userinfo 2,066 → 2,503, a password login's server CPU 21.9 → 19.4 ms
// (bench/results/steps/20261125T005805-before-cache.json, …T010046-after-cache.json).
import type { EventTypeName, StoredEvent } from '../domain/events/index.js';
import { TTL_MS } from './callers.js';
import { freshCache } from './fresh-cache.js';
import type { ReadModel } from './read-model.js';

/** How long another process's change to a client may go unseen here: the caller cache's bound. */
export const CLIENT_TTL_MS = TTL_MS;
const MAX_CLIENTS = 10_000;

/** A machine user's events that change its client credentials (an app's are all `app.*`). */
const MACHINE_CLIENT_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  'user.machine.secret.set',
  'user.machine.secret.removed',
  'user.deactivated',
  'user.reactivated',
  'user.locked',
  'user.unlocked',
  'user.removed',
]);

/**
 * A project's events that change what its apps' lookup answers: whether they may authenticate (an app's state is
 * read with its project's) and the project's login checks (UpdateProject), which come with it (login-access.ts).
 */
const PROJECT_CLIENT_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>(['project.changed', 'project.deactivated', 'project.reactivated', 'project.removed']);

/** An org's events that change whether its apps and machine users may authenticate (read with the org's state). */
const ORG_CLIENT_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>(['org.deactivated', 'org.reactivated', 'org.removed']);

const changesAClient = (e: StoredEvent) =>
  e.type.startsWith('app.') ||
  MACHINE_CLIENT_EVENTS.has(e.type as EventTypeName) ||
  PROJECT_CLIENT_EVENTS.has(e.type as EventTypeName) ||
  ORG_CLIENT_EVENTS.has(e.type as EventTypeName);

export type ClientLookups = Pick<ReadModel, 'appByClientId' | 'machineByClientId'>;

export function cachedClientLookups(
  read: ClientLookups,
  options: {
    ttlMs?: number;
    /** The event store's onAppended: this process's appends. */
    onAppended?: (listener: (events: readonly StoredEvent[]) => void) => unknown;
  } = {},
): ClientLookups {
  const ttlMs = options.ttlMs ?? CLIENT_TTL_MS;
  const apps = freshCache((clientId) => read.appByClientId(clientId), { ttlMs, maxEntries: MAX_CLIENTS });
  const machines = freshCache((clientId) => read.machineByClientId(clientId), { ttlMs, maxEntries: MAX_CLIENTS });
  options.onAppended?.((events) => {
    if (!events.some(changesAClient)) return;
    apps.clear();
    machines.clear();
  });
  return { appByClientId: (clientId) => apps.get(clientId), machineByClientId: (clientId) => machines.get(clientId) };
}
