// The commands' ports that are not storage (src/commands/ports.ts): the
// system clock, random ids and the CSPRNG's secrets. The store implements the
// event store and the lookups (src/store); start.ts wires them all.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock, Ids, Secrets } from '../commands/ports.js';
import { newId } from '../domain/ids.js';
import { hashPassword } from '../domain/identity/passwords.js';
import { generatePersonalAccessToken, hashToken } from '../domain/identity/tokens.js';
import { generateClientSecret, hashClientSecret } from '../domain/oidc/index.js';
import { randomBytes } from '../domain/random.js';

export const systemClock: Clock = { now: () => Date.now() };

export const randomIds: Ids = { newId: () => newId() };

export const cryptoSecrets: Secrets = {
  clientSecret() {
    const secret = generateClientSecret();
    return { secret, hash: hashClientSecret(secret) };
  },
  personalAccessToken() {
    const token = generatePersonalAccessToken();
    return { token, hash: hashToken(token) };
  },
  // RSA 2048 as ZITADEL's application keys; made off the event loop.
  async appKeyPair() {
    const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
    const { kty, n, e } = publicKey.export({ format: 'jwk' });
    return { privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicJwk: { kty: kty!, n: n!, e: e! } };
  },
  challenge: () => randomBytes(32),
  passwordHash: hashPassword,
};
