// The dispatcher: applies each stored event to every read model that handles it,
// in event order, inside the caller's transaction.
import type { Db } from '../database.js';
import type { EventTypeName, StoredEvent } from '../events.js';
import { appsProjection } from './apps.js';
import { instancesProjection } from './instances.js';
import { membershipsProjection } from './memberships.js';
import { orgsProjection } from './orgs.js';
import { personalAccessTokensProjection } from './personal-access-tokens.js';
import type { Handler, Projection } from './projection.js';
import { projectsProjection } from './projects.js';
import { u2fTokensProjection } from './u2f-tokens.js';
import { usersProjection } from './users.js';

export const projections: readonly Projection[] = [
  instancesProjection,
  orgsProjection,
  projectsProjection,
  usersProjection,
  membershipsProjection,
  personalAccessTokensProjection,
  appsProjection,
  u2fTokensProjection,
];

type AnyHandler = (tx: Db, event: StoredEvent) => PromiseLike<unknown>;

// Event type → its handlers, built once so dispatch is a map lookup.
const handlersByType = new Map<EventTypeName, AnyHandler[]>();
for (const projection of projections) {
  for (const [type, handler] of Object.entries(projection) as [EventTypeName, Handler<EventTypeName>][]) {
    const list = handlersByType.get(type) ?? [];
    list.push(handler as AnyHandler);
    handlersByType.set(type, list);
  }
}

/** Apply `events` (in order) to the read models. Statements run one after another on `tx`. */
export async function project(tx: Db, events: readonly StoredEvent[]): Promise<void> {
  for (const event of events) {
    for (const handler of handlersByType.get(event.type) ?? []) {
      await handler(tx, event);
    }
  }
}
