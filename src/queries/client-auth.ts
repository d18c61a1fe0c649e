// Client authentication for BASIC/POST clients: the check a token endpoint
// makes with a presented client id and secret. Constant-time on the hash.
import { verifyClientSecret } from '../domain/oidc/index.js';
import type { ReadModel } from './read-model.js';

export async function authenticateClient(read: Pick<ReadModel, 'appByClientId'>, clientId: string, presentedSecret: string): Promise<boolean> {
  const app = await read.appByClientId(clientId);
  // A deactivated app does not authenticate (DeactivateApp).
  if (!app?.clientSecretHash || app.state !== 'active') return false;
  return verifyClientSecret(presentedSecret, app.clientSecretHash);
}
