// Personal access tokens: 256 random bits, shown once, stored only as a SHA-256
// hash and looked up by it. A hash is enough: the token is not guessable, so no
// slow password hash is needed (design §4).
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'kh_';

export function generatePersonalAccessToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
