// Which org owns a project or a user. These are immutable facts — an id is
// never reused and a project or user never moves to another org — so once
// read they are kept in memory and the read model is asked only on a miss
// (AddOIDCApp and VerifyU2FRegistration ask on every call; bench/results).
// Only positive answers are kept: an unknown id may be created a moment later.
// Keyhold has no RPC that removes a project or a user; one that is added must
// drop the entry when its event is appended (as resolve-token.ts does for tokens).
import type { Database } from '../store/database.js';
import { findProject, findUser } from '../store/queries/index.js';
import type { Deps } from './context.js';

/** Entries per database before the map starts over (an id and an org id: ~150 bytes each). */
const LIMIT = 100_000;

const owners = new WeakMap<Database, Map<string, string>>();

async function ownerOf(deps: Pick<Deps, 'database'>, key: string, read: () => Promise<{ orgId: string } | undefined>): Promise<string | undefined> {
  let known = owners.get(deps.database);
  if (!known) owners.set(deps.database, (known = new Map()));
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  const row = await read();
  if (!row) return undefined;
  if (known.size >= LIMIT) known.clear();
  known.set(key, row.orgId);
  return row.orgId;
}

/** The org that owns the project, or undefined when there is no such project. */
export function projectOwner(deps: Pick<Deps, 'database'>, projectId: string): Promise<string | undefined> {
  return ownerOf(deps, `project/${projectId}`, () => findProject(deps.database.sql, projectId));
}

/** The org the user belongs to, or undefined when there is no such user. */
export function userOwner(deps: Pick<Deps, 'database'>, userId: string): Promise<string | undefined> {
  return ownerOf(deps, `user/${userId}`, () => findUser(deps.database.sql, userId));
}
