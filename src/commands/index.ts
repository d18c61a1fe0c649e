// Every write Keyhold offers, bound to its ports. The API calls these and
// nothing else to change anything; each is one file under this folder, and
// runs its rule (a decider in src/domain/<aggregate>/decider.ts) through the
// one runner (./run.ts). docs/architecture.md has the recipe for a new one.
import type { Call } from '../access/caller.js';
import type { Ports } from './ports.js';
import { withRecentCopies } from './recent-copies.js';
import { addOidcApp, type AddOidcAppInput } from './apps/add-oidc-app.js';
import { regenerateOidcClientSecret } from './apps/regenerate-secret.js';
import { removeApp } from './apps/remove-app.js';
import { deactivateApp, reactivateApp } from './apps/app-activation.js';
import { setAppApiAccess } from './apps/app-api-access.js';
import { updateApp } from './apps/update-app.js';
import { updateOidcConfig, type UpdateOidcConfigInput } from './apps/update-oidc-config.js';
import { addAppKey, removeAppKey } from './apps/app-keys.js';
import { addProject } from './projects/add-project.js';
import { addProjectMember } from './projects/add-project-member.js';
import { addProjectRole } from './projects/add-project-role.js';
import { updateProject } from './projects/update-project.js';
import { deactivateProject, reactivateProject } from './projects/project-activation.js';
import { removeProject } from './projects/remove-project.js';
import { addProjectGrant, deactivateProjectGrant, reactivateProjectGrant, removeProjectGrant, updateProjectGrant } from './projects/project-grants.js';
import { deactivateOrg, reactivateOrg, removeOrg, updateOrg } from './orgs/org-lifecycle.js';
import { updateProjectRole } from './projects/update-project-role.js';
import { removeProjectRole } from './projects/remove-project-role.js';
import { addUserGrant } from './users/add-user-grant.js';
import { deactivateUserGrant, reactivateUserGrant, removeUserGrant, updateUserGrant } from './users/user-grant-lifecycle.js';
import { addOrganization } from './orgs/add-organization.js';
import { addOrgMember } from './orgs/add-org-member.js';
import { removeOrgMember, updateOrgMember } from './orgs/org-members.js';
import { removeProjectMember, updateProjectMember } from './projects/project-members.js';
import { addCustomLoginPolicy, updateCustomLoginPolicy } from './orgs/login-policy.js';
import { addCustomLockoutPolicy, updateCustomLockoutPolicy } from './orgs/lockout-policy.js';
import { addHumanUser, type AddHumanUserInput } from './users/add-human-user.js';
import { addMachineUser } from './users/add-machine-user.js';
import { addPersonalAccessToken } from './users/add-personal-access-token.js';
import { generateMachineSecret, removeMachineSecret } from './users/machine-secret.js';
import { setPassword, type SetPasswordInput } from './users/set-password.js';
import { registerHumanUser } from './users/register-human-user.js';
import { acceptInvitePassword, checkInviteCode, createInviteCode, useInviteCode, verifyInviteCode } from './users/invite-code.js';
import { resendEmailCode, setEmail, useEmailCode, verifyEmail } from './users/email-verification.js';
import { recordLogin } from './users/record-login.js';
import { resetPassword, resetPasswordViolations } from './users/reset-password.js';
import { requestPasswordReset } from './users/password-reset.js';
import { recordAnonymousThrottle, recordOidc } from './users/record-oidc.js';
import { removePersonalAccessToken } from './users/remove-personal-access-token.js';
import { removeUserMetadata, setUserMetadata } from './users/user-metadata.js';
import { updateHumanUser, type UpdateHumanUserInput } from './users/update-human-user.js';
import { deactivateUser, lockUser, reactivateUser, removeUser, unlockUser } from './users/user-lifecycle.js';
import { endMySessions } from './users/end-my-sessions.js';
import { endAllSessions, endOtherSessions, endSession } from './users/end-sessions.js';
import { keepPasskeyWhilePending } from './passkeys/keep-pending.js';
import { registerPasskey } from './passkeys/register-passkey.js';
import { removePasskey } from './passkeys/remove-passkey.js';
import { renamePasskey } from './passkeys/rename-passkey.js';
import { usePasskey } from './passkeys/use-passkey.js';
import { verifyPasskeyRegistration } from './passkeys/verify-passkey.js';
import { keepWhilePending } from './u2f/keep-pending.js';
import { registerU2f } from './u2f/register-u2f.js';
import { removeU2f } from './u2f/remove-u2f.js';
import { renameU2f } from './u2f/rename-u2f.js';
import { removeAllU2f } from './u2f/remove-all-u2f.js';
import { generateRecoveryCodes, useRecoveryCode } from './users/recovery-codes.js';
import { verifyU2fRegistration, type VerifyU2fInput } from './u2f/verify-u2f.js';
import { useU2f } from './u2f/use-u2f.js';
import { addIdp, authorizeIdpRead, removeIdp, updateIdp } from './idp/providers.js';
import { addIdpLink, linkAtLogin, removeIdpLink, useIdpLink } from './idp/links.js';
import { pendingTotp, registerTotp, removeTotp, useTotp, verifyTotpRegistration, type UseTotpInput, type UseTotpResult } from './totp/totp.js';
import type { AttemptOutcome } from '../domain/identity/attempt-budget.js';

export type { Call, Caller } from '../access/caller.js';
export type { AddHumanUserInput, AddOidcAppInput, SetPasswordInput, UpdateHumanUserInput, UpdateOidcConfigInput, VerifyU2fInput };
export type { Written } from './written.js';
export type { UseTotpInput, UseTotpResult };

/** A command bound to its ports: (call, input) → result. */
type Bound<F> = F extends (ports: Ports, call: Call, input: infer I) => Promise<infer R> ? (call: Call, input: I) => Promise<R> : never;
const bind = <F extends (ports: Ports, call: Call, input: never) => Promise<unknown>>(ports: Ports, command: F): Bound<F> =>
  ((call: Call, input: never) => command(ports, call, input)) as Bound<F>;

export function createCommands(ports: Ports) {
  // The security-key commands decide on this process's copies of pending
  // registrations (./recent-copies.ts: the measured reason is there).
  const u2f: Ports = { ...ports, events: withRecentCopies(ports.events, keepWhilePending) };
  const passkey: Ports = { ...ports, events: withRecentCopies(ports.events, keepPasskeyWhilePending) };
  return {
    addOidcApp: bind(ports, addOidcApp),
    regenerateOidcClientSecret: bind(ports, regenerateOidcClientSecret),
    removeApp: bind(ports, removeApp),
    updateApp: bind(ports, updateApp),
    updateOidcConfig: bind(ports, updateOidcConfig),
    deactivateApp: bind(ports, deactivateApp),
    reactivateApp: bind(ports, reactivateApp),
    setAppApiAccess: bind(ports, setAppApiAccess),
    addProject: bind(ports, addProject),
    addProjectMember: bind(ports, addProjectMember),
    updateProjectMember: bind(ports, updateProjectMember),
    removeProjectMember: bind(ports, removeProjectMember),
    addProjectRole: bind(ports, addProjectRole),
    updateProject: bind(ports, updateProject),
    deactivateProject: bind(ports, deactivateProject),
    reactivateProject: bind(ports, reactivateProject),
    addProjectGrant: bind(ports, addProjectGrant),
    updateProjectGrant: bind(ports, updateProjectGrant),
    deactivateProjectGrant: bind(ports, deactivateProjectGrant),
    reactivateProjectGrant: bind(ports, reactivateProjectGrant),
    removeProjectGrant: bind(ports, removeProjectGrant),
    removeProject: bind(ports, removeProject),
    updateProjectRole: bind(ports, updateProjectRole),
    removeProjectRole: bind(ports, removeProjectRole),
    addUserGrant: bind(ports, addUserGrant),
    updateUserGrant: bind(ports, updateUserGrant),
    deactivateUserGrant: bind(ports, deactivateUserGrant),
    reactivateUserGrant: bind(ports, reactivateUserGrant),
    removeUserGrant: bind(ports, removeUserGrant),
    addOrganization: bind(ports, addOrganization),
    updateOrg: bind(ports, updateOrg),
    deactivateOrg: bind(ports, deactivateOrg),
    reactivateOrg: bind(ports, reactivateOrg),
    removeOrg: bind(ports, removeOrg),
    addOrgMember: bind(ports, addOrgMember),
    updateOrgMember: bind(ports, updateOrgMember),
    removeOrgMember: bind(ports, removeOrgMember),
    addCustomLoginPolicy: bind(ports, addCustomLoginPolicy),
    updateCustomLoginPolicy: bind(ports, updateCustomLoginPolicy),
    addCustomLockoutPolicy: bind(ports, addCustomLockoutPolicy),
    updateCustomLockoutPolicy: bind(ports, updateCustomLockoutPolicy),
    addHumanUser: bind(ports, addHumanUser),
    addMachineUser: bind(ports, addMachineUser),
    addPersonalAccessToken: bind(ports, addPersonalAccessToken),
    setPassword: bind(ports, setPassword),
    requestPasswordReset: bind(ports, requestPasswordReset),
    // Invitations: created (and resent) by an administrator, used at the invitation page (no caller: the code is the proof).
    createInviteCode: bind(ports, createInviteCode),
    setEmail: bind(ports, setEmail),
    resendEmailCode: bind(ports, resendEmailCode),
    verifyEmail: bind(ports, verifyEmail),
    useEmailCode: (input: Parameters<typeof useEmailCode>[1], client: Parameters<typeof useEmailCode>[2]) => useEmailCode(ports, input, client),
    verifyInviteCode: bind(ports, verifyInviteCode),
    useInviteCode: (input: Parameters<typeof useInviteCode>[1], client: Parameters<typeof useInviteCode>[2]) => useInviteCode(ports, input, client),
    acceptInvitePassword: (input: Parameters<typeof acceptInvitePassword>[1], client: Parameters<typeof acceptInvitePassword>[2]) => acceptInvitePassword(ports, input, client),
    /** Self-registration at the login (no caller: the person registering is the actor). */
    registerHumanUser: (input: Parameters<typeof registerHumanUser>[1], client: Parameters<typeof registerHumanUser>[2]) => registerHumanUser(ports, input, client),
    checkInviteCode: (input: Parameters<typeof checkInviteCode>[1], client: Parameters<typeof checkInviteCode>[2]) => checkInviteCode(ports, input, client),
    /** The login UI's outcomes (no caller: the user logging in is the actor). */
    recordLogin: (input: Parameters<typeof recordLogin>[1]) => recordLogin(ports, input),
    // The login's reset link: the code is the caller (used before, store/email-codes.ts).
    resetPassword: (input: Parameters<typeof resetPassword>[1]) => resetPassword(ports, input),
    resetPasswordViolations: (userId: string, password: string) => resetPasswordViolations(ports, userId, password),
    /** The OpenID Provider's audit trail of a user (no caller: the user concerned is the actor). */
    recordOidc: (userId: string, event: Parameters<typeof recordOidc>[2]) => recordOidc(ports, userId, event),
    recordAnonymousThrottle: (input: Parameters<typeof recordAnonymousThrottle>[1]) => recordAnonymousThrottle(ports, input),
    removePersonalAccessToken: bind(ports, removePersonalAccessToken),
    setUserMetadata: bind(ports, setUserMetadata),
    removeUserMetadata: bind(ports, removeUserMetadata),
    updateHumanUser: bind(ports, updateHumanUser),
    deactivateUser: bind(ports, deactivateUser),
    reactivateUser: bind(ports, reactivateUser),
    lockUser: bind(ports, lockUser),
    unlockUser: bind(ports, unlockUser),
    removeUser: bind(ports, removeUser),
    endMySessions: bind(ports, endMySessions),
    endSession: bind(ports, endSession),
    endOtherSessions: bind(ports, endOtherSessions),
    endAllSessions: bind(ports, endAllSessions),
    registerU2f: bind(u2f, registerU2f),
    verifyU2fRegistration: bind(u2f, verifyU2fRegistration),
    removeU2f: bind(u2f, removeU2f),
    renameU2f: bind(u2f, renameU2f),
    // Machine users' client secrets and apps' keys.
    generateMachineSecret: bind(ports, generateMachineSecret),
    removeMachineSecret: bind(ports, removeMachineSecret),
    addAppKey: bind(ports, addAppKey),
    removeAppKey: bind(ports, removeAppKey),
    /** The login's second factor (no caller: the user logging in is the actor). */
    useU2f: (input: Parameters<typeof useU2f>[1]) => useU2f(ports, input),
    registerPasskey: bind(passkey, registerPasskey),
    verifyPasskeyRegistration: bind(passkey, verifyPasskeyRegistration),
    removePasskey: bind(passkey, removePasskey),
    renamePasskey: bind(passkey, renamePasskey),
    /** The passkey login (no caller: nobody is authenticated yet; the passkey's user is the actor). */
    usePasskey: (input: Parameters<typeof usePasskey>[1]) => usePasskey(ports, input),
    // A lost key.
    removeAllU2f: bind(ports, removeAllU2f),
    generateRecoveryCodes: bind(ports, generateRecoveryCodes),
    /** A recovery code in place of a key at login (no caller: the user logging in is the actor). */
    useRecoveryCode: (input: Parameters<typeof useRecoveryCode>[1]) => useRecoveryCode(ports, input),
    // The authenticator app (TOTP).
    registerTotp: bind(ports, registerTotp),
    pendingTotp: bind(ports, pendingTotp),
    verifyTotpRegistration: bind(ports, verifyTotpRegistration),
    removeTotp: bind(ports, removeTotp),
    /** The login's code check (no caller: the user logging in is the actor); its guessing budgets are reserved by ./login/check-totp.ts. */
    useTotp: (input: Omit<UseTotpInput, 'client'>, counts?: (outcome: AttemptOutcome) => void): Promise<UseTotpResult> => useTotp(ports, input, counts),
    addIdp: bind(ports, addIdp),
    updateIdp: bind(ports, updateIdp),
    removeIdp: bind(ports, removeIdp),
    authorizeIdpRead: bind(ports, authorizeIdpRead),
    addIdpLink: bind(ports, addIdpLink),
    removeIdpLink: bind(ports, removeIdpLink),
    linkAtLogin: (input: Parameters<typeof linkAtLogin>[1]) => linkAtLogin(ports, input),
    useIdpLink: (input: Parameters<typeof useIdpLink>[1]) => useIdpLink(ports, input),
  };
}

export type Commands = ReturnType<typeof createCommands>;
