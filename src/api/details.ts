// ObjectDetails of a write: the written object's sequence after the write, the
// commit timestamp, and the owning org (design §5).
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ObjectDetailsSchema } from '../../gen/keyhold/object/v1/object_pb.js';
import type { StoredEvent } from '../store/events.js';

type Details = MessageInitShape<typeof ObjectDetailsSchema>;

/** Details of the object `aggregateId` after `events` were written. */
export function writeDetails(events: readonly StoredEvent[], aggregateId: string, withCreationDate: boolean): Details {
  const own = events.filter((e) => e.aggregateId === aggregateId);
  const last = own[own.length - 1] ?? events[events.length - 1];
  const at = timestampFromDate(last.createdAt);
  return {
    sequence: BigInt(last.sequence),
    changeDate: at,
    ...(withCreationDate ? { creationDate: at } : {}),
    resourceOwner: last.resourceOwner,
  };
}

/** Details of a stored read-model row. */
export function readDetails(row: { sequence: number | bigint; createdAt: Date; changedAt: Date; orgId: string }): Details {
  return {
    sequence: BigInt(row.sequence),
    creationDate: timestampFromDate(row.createdAt),
    changeDate: timestampFromDate(row.changedAt),
    resourceOwner: row.orgId,
  };
}
