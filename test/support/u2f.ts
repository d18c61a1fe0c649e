// Helpers for security-key tests: users with tokens, and registrations.
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import type { TestKeyhold } from './keyhold.js';

let counter = 0;

/** A machine user without roles, and a token for it: a "plain user". */
export async function plainUser(kh: TestKeyhold): Promise<{ userId: string; token: string }> {
  const mgmt = kh.client(ManagementService);
  const { userId } = await mgmt.addMachineUser({ userName: `plain-${process.pid}-${++counter}-${Date.now()}`, name: 'Plain user' });
  const { token } = await mgmt.addPersonalAccessToken({ userId });
  return { userId, token };
}

export async function startRegistration(kh: TestKeyhold, userId: string, token = kh.adminToken, domain = '') {
  const res = await kh.client(UserService, 'grpc', token).registerU2F({ userId, domain });
  const options = res.publicKeyCredentialCreationOptions as any;
  return { u2fId: res.u2fId, options, challenge: options.challenge as string, rpId: options.rp.id as string, details: res.details };
}
