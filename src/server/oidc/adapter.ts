// oidc-provider's adapter: every model it stores goes to the database through
// the store's port (src/store/oidc-store.ts); the Client model is read from the
// apps' read model at each lookup (clients.ts).
//
// Device codes (RFC 8628): the store keys them by hash like every bearer
// artifact, but the library finds a code by its user code and then saves it
// under its id again — so the id travels with the row sealed (AES-256-GCM under
// a key derived from the master key), as it does in the login's Interaction.
// And a device code stays stored DEVICE_CODE_GRACE_SECONDS past its expiry, so
// a device polling late is told `expired_token`, not `invalid_grant`.
import { errors } from 'oidc-provider';
import type { ReadModel } from '../../queries/read-model.js';
import type { OidcPayload, OidcStateStore } from '../../store/oidc-store.js';
import { clientMetadata, UnsupportedClient } from './clients.js';
import { seal, unseal } from './keys.js';

/** How long an expired device code is kept, to answer `expired_token` (RFC 8628 §3.5). */
export const DEVICE_CODE_GRACE_SECONDS = 600;

const SEALED_ID = 'keyholdSealedId';
const SEALED_DEVICE_CODE = 'keyholdSealedDeviceCode';

export function adapterClass(store: OidcStateStore, read: Pick<ReadModel, 'appByClientId'>, sealKey: Buffer) {
  /** The stored form: no device code in clear. */
  const sealed = (model: string, id: string, payload: OidcPayload): OidcPayload => {
    if (model === 'DeviceCode') return { ...payload, [SEALED_ID]: seal(sealKey, id) };
    if (model === 'Interaction' && typeof payload.deviceCode === 'string') {
      const { deviceCode, ...rest } = payload;
      return { ...rest, [SEALED_DEVICE_CODE]: seal(sealKey, deviceCode as string) };
    }
    return payload;
  };
  /** The library's form again. */
  const opened = (payload: OidcPayload | undefined): OidcPayload | undefined => {
    if (!payload) return payload;
    const { [SEALED_ID]: id, [SEALED_DEVICE_CODE]: deviceCode, ...rest } = payload;
    if (typeof id === 'string') rest.jti = unseal(sealKey, id, 'device code');
    if (typeof deviceCode === 'string') rest.deviceCode = unseal(sealKey, deviceCode, 'device code');
    return rest as OidcPayload;
  };

  return class KeyholdAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') return;
      const keep = this.model === 'DeviceCode' && expiresIn !== undefined ? Math.max(expiresIn, 0) + DEVICE_CODE_GRACE_SECONDS : expiresIn;
      await store.upsert(this.model, id, sealed(this.model, id, payload), keep);
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
      return opened(await store.find(this.model, id));
    }

    async findByUid(uid: string) {
      return opened(await store.findByUid(this.model, uid));
    }

    async findByUserCode(userCode: string) {
      return opened(await store.findByUserCode(this.model, userCode));
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
