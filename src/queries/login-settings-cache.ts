// A login page reads its settings on nearly every step: the instance's default
// org, the org's login and lockout policies, the org that owns the app's
// project, the identity providers offered. They change rarely and only by an
// administrator, so they are read through the one cache seam (./fresh-cache.ts)
// like the callers and clients: found values only, each trusted for
// LOGIN_SETTINGS_TTL_MS (the same bound as a caller's, for another process's
// change), this process's own change clearing them at once.
//
// Nothing here is a secret or a credential: an identity provider's client
// secret lives sealed in its own table, read when the provider is used. A
// user's own state (locked, its keys, its password) is never read from here.
//
// Measured: a warm password login read these settings 7 times (3 of them the
// same login policy), 7 of its 41 statements (statement-counts.test.ts).
import type { StoredEvent } from '../domain/events/index.js';
import { TTL_MS } from './callers.js';
import { freshCache } from './fresh-cache.js';
import type { ReadModel } from './read-model.js';

export const LOGIN_SETTINGS_TTL_MS = TTL_MS;
const MAX_ENTRIES = 1_000;

type SettingsReads = Pick<ReadModel, 'defaultOrgId' | 'loginPolicyOf' | 'maxPasswordAttemptsOf' | 'ownerOfProject' | 'identityProvidersOffered'>;

/** The events that change an answer here: the start of each type's name. Any of them clears every entry. */
const CHANGES_SETTINGS: readonly string[] = [
  'instance.added',
  'org.login.policy.',
  'org.lockout.policy.',
  'org.added',
  'org.removed',
  'org.deactivated',
  'org.reactivated',
  'project.added',
  'project.removed',
  'idp.',
];

const changesSettings = (e: StoredEvent) => CHANGES_SETTINGS.some((prefix) => e.type.startsWith(prefix));

export function cachedLoginSettings(
  read: SettingsReads,
  options: { ttlMs?: number; onAppended?: (listener: (events: readonly StoredEvent[]) => void) => unknown } = {},
): SettingsReads {
  const config = { ttlMs: options.ttlMs ?? LOGIN_SETTINGS_TTL_MS, maxEntries: MAX_ENTRIES };
  // Answers that may be "none" (no policy of the org's own, no default org) are kept boxed: that is an answer too.
  const defaultOrg = freshCache(async () => ({ orgId: await read.defaultOrgId() }), config);
  const loginPolicies = freshCache(async (orgId) => ({ policy: await read.loginPolicyOf(orgId) }), config);
  const attempts = freshCache(async (orgId) => ({ max: await read.maxPasswordAttemptsOf(orgId) }), config);
  const owners = freshCache((projectId) => read.ownerOfProject(projectId), config);
  const providers = freshCache((orgId) => read.identityProvidersOffered(orgId), config);
  const all = [defaultOrg, loginPolicies, attempts, owners, providers];
  options.onAppended?.((events) => {
    if (events.some(changesSettings)) for (const cache of all) cache.clear();
  });
  return {
    defaultOrgId: async () => (await defaultOrg.get('instance'))?.orgId,
    loginPolicyOf: async (orgId) => (await loginPolicies.get(orgId))?.policy,
    maxPasswordAttemptsOf: async (orgId) => (await attempts.get(orgId))!.max,
    ownerOfProject: (projectId) => owners.get(projectId),
    identityProvidersOffered: async (orgId) => (await providers.get(orgId)) ?? [],
  };
}
