// Apps of projects. A removed app's row is deleted so its name (and client id)
// can be used again.
import { eq } from 'drizzle-orm';
import { apps } from '../schema.js';
import type { Projection } from './projection.js';

export const appsProjection: Projection = {
  'app.added': (tx, e) =>
    tx.insert(apps).values({
      id: e.aggregateId,
      projectId: e.payload.projectId,
      orgId: e.resourceOwner,
      name: e.payload.name,
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  'app.oidc.config.added': (tx, e) =>
    tx
      .update(apps)
      .set({
        clientId: e.payload.clientId,
        clientSecretHash: e.payload.clientSecretHash,
        config: e.payload.config,
        changedAt: e.createdAt,
        sequence: e.sequence,
      })
      .where(eq(apps.id, e.aggregateId)),
  'app.oidc.secret.changed': (tx, e) =>
    tx
      .update(apps)
      .set({ clientSecretHash: e.payload.clientSecretHash, changedAt: e.createdAt, sequence: e.sequence })
      .where(eq(apps.id, e.aggregateId)),
  'app.removed': (tx, e) => tx.delete(apps).where(eq(apps.id, e.aggregateId)),
};
