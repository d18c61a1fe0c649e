// Client authentication for BASIC/POST clients: the check a token endpoint
// makes with a presented client id and secret. Constant-time on the hash.
import { verifyClientSecret } from '../domain/oidc/index.js';
import type { Db } from '../store/database.js';
import { findAppByClientId } from '../store/queries/index.js';

export async function authenticateClient(db: Db, clientId: string, presentedSecret: string): Promise<boolean> {
  const app = await findAppByClientId(db, clientId);
  if (!app?.clientSecretHash) return false;
  return verifyClientSecret(presentedSecret, app.clientSecretHash);
}
