// RegisterU2F, VerifyU2FRegistration, ListU2FTokens, RemoveU2F (design §7).
import { randomBytes } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { U2FState, type UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { invalidRequest, KeyholdError, violation, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { assertVerifiable, u2fDecider, type U2fCommand } from '../../domain/u2f/decider.js';
import { buildCreationOptions } from '../../domain/webauthn/index.js';
import { findUser, listU2fOfUser, verifiedCredentialIdsOfUser } from '../../store/queries/index.js';
import { appendNew, runCommand } from '../../store/run-command.js';
import { callerOf, type Deps } from '../context.js';
import { writeDetails } from '../details.js';
import { mapConflicts } from '../unique-constraints.js';
import { userForCaller } from './users.js';

type Impl = ServiceImpl<typeof UserService>;

/** Seed spec §2.3: the credential's JSON serialization is 55..1048576 characters. */
export const CREDENTIAL_JSON_MIN = 55;
export const CREDENTIAL_JSON_MAX = 1_048_576;

function credentialViolations(credential: JsonObject | undefined): FieldViolation[] {
  if (!credential) return [violation('publicKeyCredential', { en: 'is required', de: 'ist erforderlich' })];
  const length = JSON.stringify(credential).length;
  if (length < CREDENTIAL_JSON_MIN || length > CREDENTIAL_JSON_MAX) {
    return [
      violation('publicKeyCredential', {
        en: `must serialize to ${CREDENTIAL_JSON_MIN} to ${CREDENTIAL_JSON_MAX} characters of JSON (got ${length})`,
        de: `muss als JSON ${CREDENTIAL_JSON_MIN} bis ${CREDENTIAL_JSON_MAX} Zeichen lang sein (sind ${length})`,
      }),
    ];
  }
  return [];
}

export function u2fHandlers(deps: Deps): Pick<Impl, 'registerU2F' | 'verifyU2FRegistration' | 'listU2FTokens' | 'removeU2F'> {
  const webauthn = deps.config.webauthn;
  return {
    async registerU2F(req, ctx) {
      const caller = callerOf(ctx);
      const violations = requiredId('userId', req.userId);
      const rpId = req.domain.trim() || webauthn.rpIds[0];
      if (!webauthn.rpIds.includes(rpId)) {
        violations.push(violation('domain', { en: 'is not a configured relying party id', de: 'ist keine konfigurierte Relying-Party-ID' }));
      }
      if (violations.length) throw invalidRequest(violations);
      await userForCaller(deps, caller, req.userId, 'user.credential.write');
      // The whole row: the WebAuthn options carry the user's names.
      const user = await findUser(deps.database.sql, req.userId);
      if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: req.userId });
      const exclude = await verifiedCredentialIdsOfUser(deps.database.db, user.id, rpId);
      const challenge = randomBytes(32);
      const u2fId = newId();
      const expiresAt = new Date(Date.now() + webauthn.timeoutMs);
      const events = await appendNew(deps.store, [
        {
          aggregateType: 'u2f',
          aggregateId: u2fId,
          type: 'u2f.registration.started',
          payload: { userId: user.id, rpId, challenge: challenge.toString('base64url'), expiresAt: expiresAt.toISOString() },
          resourceOwner: user.orgId,
          creator: caller.userId,
        },
      ]);
      const options = buildCreationOptions({
        rpId,
        rpName: webauthn.rpName,
        userId: user.id,
        userName: user.username,
        userDisplayName: user.displayName || user.name || user.username,
        challenge,
        timeoutMs: webauthn.timeoutMs,
        excludeCredentialIds: exclude,
        attestation: webauthn.attestation,
      });
      return {
        u2fId,
        details: writeDetails(events, u2fId, false),
        publicKeyCredentialCreationOptions: options as unknown as JsonObject,
      };
    },

    async verifyU2FRegistration(req, ctx) {
      const caller = callerOf(ctx);
      const violations = [
        ...requiredId('userId', req.userId),
        ...requiredId('u2fId', req.u2fId),
        ...credentialViolations(req.publicKeyCredential),
        ...requiredText('tokenName', req.tokenName, 200),
      ];
      if (violations.length) throw invalidRequest(violations);
      const user = await userForCaller(deps, caller, req.userId, 'user.credential.write');
      // A missing token, or one of another user, is U2F_NOT_FOUND from the loaded
      // events (assertVerifiable, first thing below): no separate read-model lookup.
      const tokenName = req.tokenName.trim();
      const events = await mapConflicts(
        runCommand(deps.store, { type: 'u2f', id: req.u2fId }, u2fDecider(req.u2fId, user.id), async (state): Promise<U2fCommand> => {
          // State first (already verified, expired), then the credential itself.
          assertVerifiable(state, user.id, Date.now());
          const result = await deps.verifyRegistration({
            credential: req.publicKeyCredential,
            expectedChallenge: state.challenge,
            expectedOrigins: webauthn.origins,
            expectedRpId: state.rpId,
          });
          if (!result.ok) throw new KeyholdError(result.reason, { u2fId: req.u2fId, detail: result.detail });
          return { kind: 'verify', credential: result.credential, tokenName, actor: caller.userId };
        }),
        { u2fId: req.u2fId },
      );
      const details = writeDetails(events, req.u2fId, false);
      return { details };
    },

    async listU2FTokens(req, ctx) {
      const caller = callerOf(ctx);
      const violations = requiredId('userId', req.userId);
      if (violations.length) throw invalidRequest(violations);
      const user = await userForCaller(deps, caller, req.userId, 'user.read');
      const rows = await listU2fOfUser(deps.database.db, user.id);
      return {
        result: rows.map((t) => ({
          id: t.id,
          name: t.name ?? '',
          state: t.state === 'ready' ? U2FState.U2F_STATE_READY : U2FState.U2F_STATE_PENDING,
          rpId: t.rpId,
          format: t.format ?? '',
          aaguid: t.aaguid ?? '',
          credentialId: t.credentialId ?? '',
          transports: t.transports ?? [],
          creationDate: timestampFromDate(t.createdAt),
          expirationDate: t.state === 'pending' ? timestampFromDate(t.expiresAt) : undefined,
        })),
      };
    },

    async removeU2F(req, ctx) {
      const caller = callerOf(ctx);
      const violations = [...requiredId('userId', req.userId), ...requiredId('u2fId', req.u2fId)];
      if (violations.length) throw invalidRequest(violations);
      const user = await userForCaller(deps, caller, req.userId, 'user.credential.write');
      const events = await runCommand(deps.store, { type: 'u2f', id: req.u2fId }, u2fDecider(req.u2fId, user.id), {
        kind: 'remove',
        actor: caller.userId,
      });
      return { details: writeDetails(events, req.u2fId, false) };
    },
  };
}
