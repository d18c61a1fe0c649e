// ObjectDetails (design §5): of a write (the command's Written facts), or of a
// stored read-model row.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ObjectDetailsSchema } from '../../gen/keyhold/object/v1/object_pb.js';
import type { Written } from '../commands/written.js';
import type { Listed } from '../domain/lists.js';
import type { Versioned } from '../queries/read-model.js';

type Details = MessageInitShape<typeof ObjectDetailsSchema>;

/** Details of the object a write wrote; a creation's change date is also its creation date. */
export function writeDetails(written: Written, withCreationDate: boolean): Details {
  const at = timestampFromDate(written.at);
  return {
    sequence: BigInt(written.sequence),
    changeDate: at,
    ...(withCreationDate ? { creationDate: at } : {}),
    resourceOwner: written.resourceOwner,
  };
}

/** Details of a stored read-model row. */
export function readDetails(row: Versioned): Details {
  return {
    sequence: BigInt(row.sequence),
    creationDate: timestampFromDate(row.createdAt),
    changeDate: timestampFromDate(row.changedAt),
    resourceOwner: row.orgId,
  };
}

/** ListDetails of a list answer (management v1: `viewTimestamp`). */
export function listDetails(listed: Listed<unknown>) {
  return { totalResult: BigInt(listed.total), processedSequence: listed.processedSequence, viewTimestamp: timestampFromDate(listed.at) };
}

/** ListDetails of a list answer (v2 services: `timestamp`). */
export function listDetailsV2(listed: Listed<unknown>) {
  return { totalResult: BigInt(listed.total), processedSequence: listed.processedSequence, timestamp: timestampFromDate(listed.at) };
}

/** The text queries of a request's `queries`, each with its path for a 400 (`queries[2].nameQuery.name`). */
export function sentTexts<Q>(queries: readonly Q[], pick: (q: Q) => { oneof: string; field: string; value: string; method: number } | undefined) {
  return queries.flatMap((q, i) => {
    const t = pick(q);
    return t ? [{ field: `queries[${i}].${t.oneof}.${t.field}`, value: t.value, method: t.method }] : [];
  });
}
