// Whether a user has a ready authenticator app (TOTP): the login asks it after
// the password, to offer the code step. No caller: the login asks for the user
// who has just given the right password. One primary-key read of user_totp.
import type { ReadModel } from './read-model.js';

export async function hasReadyTotp(read: Pick<ReadModel, 'totpOf'>, userId: string): Promise<boolean> {
  return (await read.totpOf(userId))?.state === 'ready';
}
