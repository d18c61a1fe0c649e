// The login's ports for other identity providers (src/login/ports.ts): which
// providers an org's apps offer, and the exchange with one (./upstream.ts)
// with its secret opened for that exchange only, then what the verified answer
// comes to (src/login/external.ts). The upstream's own error goes to the log
// (its `error`, `error_description` or the failed check's name, never a code,
// token or claim value); the person gets a sentence.
import type { Logger } from 'pino';
import type { Commands } from '../../commands/index.js';
import type { IdpSecretStore } from '../../commands/ports.js';
import type { IdpFacts } from '../../access/lookups.js';
import type { ProviderConfig } from '../../domain/idp/provider.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { externalSignIn } from '../../login/external.js';
import type { ExternalFinish, LoginPorts } from '../../login/ports.js';
import type { ReadModel } from '../../queries/read-model.js';
import { UpstreamFailure, type UpstreamClient } from './upstream.js';

const configOf = (p: IdpFacts): ProviderConfig => ({ id: p.idpId, orgId: p.orgId, ...p.settings }) as ProviderConfig;

const PROBLEM_OF = {
  IDP_NOT_FOUND: 'externalRefused',
  IDP_LINK_REQUIRED: 'externalNotLinked',
  SUBJECT_MISSING: 'externalRefused',
  USER_NOT_ACTIVE: 'locked',
  USERNAME_TAKEN: 'externalNotLinked',
  PROFILE_INCOMPLETE: 'externalNotLinked',
} as const;

export function externalLoginPorts(deps: {
  read: Pick<ReadModel, 'identityProvidersOffered' | 'identityProvider' | 'idpLink' | 'userFacts' | 'searchUsers' | 'defaultOrgId'>;
  commands: Pick<Commands, 'useIdpLink' | 'linkAtLogin' | 'addHumanUser' | 'setEmail'>;
  secrets: () => IdpSecretStore;
  upstream: UpstreamClient;
  mfaRequired: (userId: string) => Promise<boolean>;
  log: Pick<Logger, 'warn'>;
}): Pick<LoginPorts, 'offeredProviders' | 'startExternal' | 'finishExternal' | 'linkPending'> {
  const orgOf = async (orgId: string | undefined) => orgId ?? (await deps.read.defaultOrgId()) ?? '';
  /** The provider, when the org's apps offer it. */
  const offered = async (idpId: string, orgId: string | undefined) => {
    const p = await deps.read.identityProvider(idpId);
    const org = await orgOf(orgId);
    return p && (p.orgId === undefined || p.orgId === org) ? p : undefined;
  };
  return {
    async offeredProviders(orgId) {
      return (await deps.read.identityProvidersOffered(await orgOf(orgId))).map((p) => ({ idpId: p.idpId, name: p.settings.name }));
    },
    async startExternal(idpId, orgId, state, redirectUri) {
      const p = await offered(idpId, orgId);
      const secret = p && (await deps.secrets().get(idpId));
      if (!p || !secret) return undefined;
      try {
        const started = await deps.upstream.start(configOf(p), secret, redirectUri, state);
        return { url: started.url, nonce: started.nonce, verifier: started.verifier };
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err;
        deps.log.warn({ idpId, upstream: err.kind, detail: err.detail }, 'the identity provider could not be asked');
        return undefined;
      }
    },
    async linkPending(link, userId) {
      try {
        await deps.commands.linkAtLogin({ idpId: link.idpId, subject: link.subject, userId, how: 'login' });
        return true;
      } catch (err) {
        // The person's own login goes on whatever became of the link (it is already recorded).
        deps.log.warn({ idpId: link.idpId, reason: err instanceof KeyholdError ? err.reason : err instanceof Error ? err.name : 'unknown' }, 'an identity waiting on a sign-in was not linked');
        return false;
      }
    },
    async finishExternal({ idpId, orgId, clientId, callback, kept }): Promise<ExternalFinish> {
      const p = await offered(idpId, orgId);
      const name = p?.settings.name ?? '';
      const secret = p && (await deps.secrets().get(idpId));
      if (!p || !secret) return { kind: 'problem', text: 'externalRefused', name };
      let vouched;
      try {
        vouched = await deps.upstream.finish(configOf(p), secret, callback, kept);
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err;
        deps.log.warn({ idpId, upstream: err.kind, detail: err.detail }, 'the identity provider’s answer was not accepted');
        return { kind: 'problem', text: err.kind === 'denied' ? 'externalDenied' : err.kind === 'unavailable' ? 'externalUnavailable' : 'externalRefused', name };
      }
      const result = await externalSignIn(
        { read: deps.read, commands: deps.commands, mfaRequired: deps.mfaRequired },
        { idpId, orgId: await orgOf(orgId), clientId, claims: vouched.claims, mapping: vouched.mapping },
      );
      if (result.kind === 'login') return { kind: 'login', userId: result.userId, username: (await deps.read.userFacts(result.userId))?.username ?? '', amr: result.amr, secondFactor: result.secondFactor, name };
      if (result.kind === 'choose') return result.link ? { kind: 'unlinked', subject: result.identity.subject, name } : { kind: 'problem', text: 'externalNotLinked', name };
      return { kind: 'problem', text: PROBLEM_OF[result.reason], name };
    },
  };
}
