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
import { clientMetadata, UnsupportedClient, usesAppKeys } from './clients.js';
import { seal, unseal } from './keys.js';
import { machineClientMetadata } from './machine-clients.js';

/** What the adapter reads: apps, and (issue 18) machine users' client credentials and apps' keys. */
export type ClientReads = Pick<ReadModel, 'appByClientId' | 'machineByClientId' | 'liveAppKeys'>;

/** How long an expired device code is kept, to answer `expired_token` (RFC 8628 §3.5). */
export const DEVICE_CODE_GRACE_SECONDS = 600;

const SEALED_ID = 'keyholdSealedId';
const SEALED_DEVICE_CODE = 'keyholdSealedDeviceCode';

export function adapterClass(store: OidcStateStore, read: ClientReads, sealKey: Buffer) {
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
      // A client assertion's jti (private_key_jwt, issue 18): the library looks it up and then
      // saves it; two processes could both find nothing, so the save itself refuses a live one.
      if (this.model === 'ReplayDetection') {
        if (!(await store.insertNew(this.model, id, payload, expiresIn ?? 60))) throw new errors.InvalidClientAuth('client assertion tokens must only be used once');
        return;
      }
      const keep = this.model === 'DeviceCode' && expiresIn !== undefined ? Math.max(expiresIn, 0) + DEVICE_CODE_GRACE_SECONDS : expiresIn;
      await store.upsert(this.model, id, sealed(this.model, id, payload), keep);
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
