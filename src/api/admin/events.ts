// ListEvents: the audit log (src/queries/events.ts).
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AdminService } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import { callOf, type ApiDeps } from '../context.js';

export function adminHandlers({ queries }: ApiDeps): Pick<ServiceImpl<typeof AdminService>, 'listEvents'> {
  return {
    async listEvents(req, ctx) {
      const range = req.creationDateRange;
      const events = await queries.listEvents(callOf(ctx), {
        sequence: req.sequence,
        limit: req.limit,
        asc: req.asc,
        editorUserId: req.editorUserId,
        eventTypes: req.eventTypes,
        aggregateId: req.aggregateId,
        aggregateTypes: req.aggregateTypes,
        resourceOwner: req.resourceOwner,
        since: range?.since ? timestampDate(range.since) : undefined,
        until: range?.until ? timestampDate(range.until) : undefined,
      });
      return {
        events: events.map((e) => ({
          editor: { userId: e.creator },
          aggregate: { id: e.aggregateId, type: e.aggregateType, resourceOwner: e.resourceOwner },
          sequence: BigInt(e.position),
          creationDate: timestampFromDate(new Date(e.createdAt)),
          payload: e.payload as JsonObject,
          type: e.type,
          aggregateSequence: BigInt(e.sequence),
        })),
      };
    },
  };
}
