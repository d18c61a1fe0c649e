// What a write tells its caller about the object it wrote (design §5
// ObjectDetails): its sequence after the write, the commit's instant, and the
// org that owns it. The API turns it into ObjectDetails.
import type { StoredEvent } from '../domain/events/index.js';

export interface Written {
  /** The object's sequence after the write. */
  sequence: number;
  /** The commit's timestamp (also the creation date of an object the write created). */
  at: Date;
  resourceOwner: string;
}

/** The facts of object `aggregateId` after `events` were written (the last event of a write of several objects otherwise). */
export function written(events: readonly StoredEvent[], aggregateId: string): Written {
  const own = events.filter((e) => e.aggregateId === aggregateId);
  const last = own[own.length - 1] ?? events[events.length - 1]!;
  return { sequence: last.sequence, at: last.createdAt, resourceOwner: last.resourceOwner };
}
