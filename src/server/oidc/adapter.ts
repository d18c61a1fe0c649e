// oidc-provider's adapter: every model it stores goes to the database through
// the store's port (src/store/oidc-store.ts); the Client model is read from the
// apps' read model at each lookup (clients.ts).
import { errors } from 'oidc-provider';
import type { ReadModel } from '../../queries/read-model.js';
import type { OidcPayload, OidcStateStore } from '../../store/oidc-store.js';
import { clientMetadata, UnsupportedClient, usesAppKeys } from './clients.js';
import { machineClientMetadata } from './machine-clients.js';

/** What the adapter reads: apps, and (issue 18) machine users' client credentials and apps' keys. */
export type ClientReads = Pick<ReadModel, 'appByClientId' | 'machineByClientId' | 'liveAppKeys'>;

export function adapterClass(store: OidcStateStore, read: ClientReads) {
  return class KeyholdAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') return;
      // A client assertion's jti (private_key_jwt, issue 18): the library looks it up and then
      // saves it; two processes could both find nothing, so the save itself refuses a live one.
      if (this.model === 'ReplayDetection') {
        if (!(await store.insertNew(this.model, id, payload, expiresIn ?? 60))) throw new errors.InvalidClientAuth('client assertion tokens must only be used once');
        return;
      }
      await store.upsert(this.model, id, payload, expiresIn);
    }

    async find(id: string): Promise<OidcPayload | undefined> {
      if (this.model === 'Client') {
        const app = await read.appByClientId(id);
        // Not an app's: a machine user's client credentials (issue 18), while it is active.
        if (!app) {
          const machine = await read.machineByClientId(id);
          return machine?.state === 'active' ? (machineClientMetadata(machine) as OidcPayload) : undefined;
        }
        // A deactivated app (DeactivateApp) is no client until it is reactivated: unknown to the provider.
        if (!app || app.state !== 'active') return undefined;
        try {
          const keys = usesAppKeys(app) ? await read.liveAppKeys(app.id, new Date()) : [];
          return clientMetadata(app, keys) as OidcPayload | undefined;
        } catch (e) {
          if (e instanceof UnsupportedClient) throw new errors.InvalidClient(e.description);
          throw e;
        }
      }
      return store.find(this.model, id);
    }

    findByUid(uid: string) {
      return store.findByUid(this.model, uid);
    }

    findByUserCode(userCode: string) {
      return store.findByUserCode(this.model, userCode);
    }

    consume(id: string) {
      return store.consume(this.model, id);
    }

    destroy(id: string) {
      return store.destroy(this.model, id);
    }

    revokeByGrantId(grantId: string) {
      return store.revokeByGrantId(grantId);
    }
  };
}
