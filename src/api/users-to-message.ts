// A user of the read model as the User message shared by user v2 and auth v1.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { UserState, type UserSchema } from '../../gen/keyhold/user/v2/user_pb.js';
import type { UserView } from '../queries/read-model.js';
import { readDetails } from './details.js';

export function userToMessage(u: UserView): MessageInitShape<typeof UserSchema> {
  return {
    userId: u.id,
    details: readDetails(u),
    state: u.state === 'inactive' ? UserState.INACTIVE : u.state === 'locked' ? UserState.LOCKED : UserState.ACTIVE,
    username: u.username,
    type:
      u.kind === 'human'
        ? {
            case: 'human',
            value: {
              profile: { givenName: u.givenName ?? '', familyName: u.familyName ?? '', displayName: u.displayName ?? '' },
              email: { email: u.email ?? '', isVerified: Boolean(u.emailVerified) },
            },
          }
        : { case: 'machine', value: { name: u.name ?? '', description: u.description ?? '' } },
  };
}
