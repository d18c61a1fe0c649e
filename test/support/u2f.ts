// Helpers for security-key tests: users with tokens, and registrations.
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { machineCaller, type MachineCaller } from './identity.js';
import type { TestKeyhold } from './keyhold.js';

let counter = 0;

/** A machine user without roles in the admin's org, and a token for it: a "plain user". */
export function plainUser(kh: TestKeyhold): Promise<MachineCaller> {
  return machineCaller(kh, undefined, `plain-${process.pid}-${++counter}-${Date.now()}`);
}

export async function startRegistration(kh: TestKeyhold, userId: string, token = kh.adminToken, domain = '') {
  const res = await kh.client(UserService, 'grpc', token).registerU2F({ userId, domain });
  const options = res.publicKeyCredentialCreationOptions as any;
  return { u2fId: res.u2fId, options, challenge: options.challenge as string, rpId: options.rp.id as string, details: res.details };
}
