// ListEvents (the audit log): the instance owner reads every event;
// an org owner (org.events.read) its org's events only — a resource_owner
// filter naming another org is 403. Payloads leave out their secret fields by
// the one rule of the vocabulary (domain/events withoutSecrets).
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError, violation } from '../domain/errors/keyhold-error.js';
import { AGGREGATE_TYPES, withoutSecrets, type EventTypeName, type StoredEvent } from '../domain/events/index.js';
import { hasPermission } from '../domain/identity/permissions.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { eventLimit, MAX_QUERIES, type EventSearch } from '../domain/lists.js';
import type { ReadModel } from './read-model.js';

export interface ListEventsInput {
  sequence: bigint;
  limit: number;
  asc: boolean;
  editorUserId: string;
  eventTypes: string[];
  aggregateId: string;
  aggregateTypes: string[];
  resourceOwner: string;
  since?: Date;
  until?: Date;
}

/** An event as the audit log shows it: its payload without secret fields. */
export type AuditedEvent = Omit<StoredEvent, 'payload'> & { payload: Record<string, unknown> };

export async function listEvents(read: ReadModel, { caller }: Call, input: ListEventsInput): Promise<AuditedEvent[]> {
  const violations = [
    ...(input.editorUserId ? requiredId('editorUserId', input.editorUserId) : []),
    ...(input.aggregateId ? requiredId('aggregateId', input.aggregateId) : []),
    ...(input.resourceOwner ? requiredId('resourceOwner', input.resourceOwner) : []),
    ...input.aggregateTypes.flatMap((t, i) =>
      (AGGREGATE_TYPES as readonly string[]).includes(t) ? [] : [violation(`aggregateTypes[${i}]`, { en: 'is not an aggregate type', de: 'ist kein Aggregattyp' })],
    ),
    ...input.eventTypes.flatMap((t, i) => (t.length > 0 && t.length <= 100 ? [] : [violation(`eventTypes[${i}]`, { en: 'is not an event type', de: 'ist kein Ereignistyp' })])),
    ...(input.eventTypes.length > MAX_QUERIES * 5 ? [violation('eventTypes', { en: 'has too many entries', de: 'hat zu viele Einträge' })] : []),
    ...(input.since && input.until && input.since > input.until
      ? [violation('creationDateRange', { en: 'since must not be after until', de: 'since darf nicht nach until liegen' })]
      : []),
  ];
  if (violations.length) throw invalidRequest(violations);

  let orgIds: string[] | undefined;
  if (!hasPermission(caller.memberships, 'org.events.read', {})) {
    orgIds = [...new Set(caller.memberships.filter((m) => m.scopeType === 'org').map((m) => m.scopeId))].filter((orgId) =>
      hasPermission(caller.memberships, 'org.events.read', { orgId }),
    );
    if (orgIds.length === 0 || (input.resourceOwner && !orgIds.includes(input.resourceOwner))) {
      throw new KeyholdError('PERMISSION_DENIED', { permission: 'org.events.read' });
    }
  }
  const search: EventSearch = {
    orgIds,
    after: input.sequence,
    asc: input.asc,
    limit: eventLimit(input.limit),
    editorUserId: input.editorUserId || undefined,
    eventTypes: input.eventTypes,
    aggregateId: input.aggregateId || undefined,
    aggregateTypes: input.aggregateTypes,
    resourceOwner: input.resourceOwner || undefined,
    since: input.since,
    until: input.until,
  };
  const events = await read.events(search);
  return events.map((e) => ({ ...e, payload: withoutSecrets(e.type as EventTypeName, e.payload as never) as Record<string, unknown> }));
}
