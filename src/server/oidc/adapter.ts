// oidc-provider's adapter: every model it stores goes to the database through
// the store's port (src/store/oidc-store.ts); the Client model is read from the
// apps' read model at each lookup (clients.ts).
import { errors } from 'oidc-provider';
import type { ReadModel } from '../../queries/read-model.js';
import type { OidcPayload, OidcStateStore } from '../../store/oidc-store.js';
import { clientMetadata, UnsupportedClient } from './clients.js';

export function adapterClass(store: OidcStateStore, read: Pick<ReadModel, 'appByClientId'>) {
  return class KeyholdAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') return;
      await store.upsert(this.model, id, payload, expiresIn);
    }

    async find(id: string): Promise<OidcPayload | undefined> {
      if (this.model === 'Client') {
        const app = await read.appByClientId(id);
        // A deactivated app (DeactivateApp) is no client until it is reactivated: unknown to the provider.
        if (!app || app.state !== 'active') return undefined;
        try {
          return clientMetadata(app) as OidcPayload | undefined;
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
