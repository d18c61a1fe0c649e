// Every service Keyhold serves, with its implementation. The Connect router and
// the REST routes (src/server) are both built from this one list.
import type { DescService } from '@bufbuild/protobuf';
import { AdminService } from '../../gen/keyhold/admin/v1/admin_pb.js';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { adminHandlers } from './admin/events.js';
import { authHandlers } from './auth/me.js';
import type { ApiDeps } from './context.js';
import { appHandlers } from './management/apps.js';
import { credentialHandlers } from './management/credentials.js';
import { projectHandlers } from './management/projects.js';
import { projectLifecycleHandlers } from './management/project-lifecycle.js';
import { projectGrantHandlers } from './management/project-grants.js';
import { orgLifecycleHandlers } from './management/org-lifecycle.js';
import { userGrantHandlers } from './management/user-grants.js';
import { managementUserHandlers } from './management/users.js';
import { userMetadataHandlers } from './management/user-metadata.js';
import { loginPolicyHandlers } from './management/login-policy.js';
import { lockoutPolicyHandlers } from './management/lockout-policy.js';
import { memberHandlers } from './management/members.js';
import { organizationHandlers } from './org/organizations.js';
import { providerHandlers } from './idp/providers.js';
import { passkeyHandlers } from './user/passkeys.js';
import { idpLinkHandlers } from './user/idp-links.js';
import { emailHandlers } from './user/email.js';
import { inviteHandlers } from './user/invite.js';
import { passwordResetHandlers } from './user/password-reset.js';
import { sessionHandlers } from './user/sessions.js';
import { totpHandlers } from './user/totp.js';
import { u2fHandlers } from './user/u2f.js';
import { userHandlers } from './user/users.js';

/** A service and its implementation. */
export interface RegisteredService {
  desc: DescService;
  /** Methods by local name; missing ones answer UNIMPLEMENTED. */
  impl: object;
}

export function createServices(deps: ApiDeps): RegisteredService[] {
  return [
    {
      desc: ManagementService,
      impl: {
        healthz: () => ({}),
        ...projectHandlers(deps),
        ...projectLifecycleHandlers(deps),
        ...projectGrantHandlers(deps),
        ...userGrantHandlers(deps),
        ...managementUserHandlers(deps),
        ...userMetadataHandlers(deps),
        ...appHandlers(deps),
        ...credentialHandlers(deps),
        ...loginPolicyHandlers(deps),
        ...lockoutPolicyHandlers(deps),
        ...memberHandlers(deps),
        ...orgLifecycleHandlers(deps),
        ...providerHandlers(deps, { scope: 'org' }),
      },
    },
    { desc: UserService, impl: { ...userHandlers(deps), ...u2fHandlers(deps), ...passkeyHandlers(deps), ...totpHandlers(deps), ...inviteHandlers(deps), ...passwordResetHandlers(deps), ...emailHandlers(deps), ...sessionHandlers(deps), ...idpLinkHandlers(deps) } },
    { desc: OrganizationService, impl: organizationHandlers(deps) },
    { desc: AuthService, impl: authHandlers(deps) },
    { desc: AdminService, impl: { ...adminHandlers(deps), ...providerHandlers(deps, { scope: 'instance' }) } },
  ];
}
