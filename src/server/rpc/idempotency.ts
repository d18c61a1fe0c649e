// Safe retries for what is shown once (IETF httpapi draft "The Idempotency-Key
// HTTP Header Field"; over gRPC and gRPC-Web the metadata key of the same name).
// A create whose answer carries a secret, or a registration's verification, sent
// with an `Idempotency-Key`, runs once: a repeat by the same caller with the same
// key and the same request, within the window, gets the first answer again — the
// same secret — instead of a second execution or "name taken".
//
// - The key is the caller's (its user), never another's: a row is named by an
//   HMAC of user id and key.
// - Same request: an HMAC of the operation, the org header and the request
//   message's binary form (path parameters are fields of it, so REST, gRPC and
//   Connect requests for the same thing are one request). Another request with
//   the key: IDEMPOTENCY_KEY_REUSED (422 / FAILED_PRECONDITION).
// - While the first runs, a repeat gets IDEMPOTENCY_KEY_IN_PROGRESS (409 /
//   ABORTED, retry-after 1 s) and never a second execution (store/idempotent-answers.ts).
// - Only a success is kept, sealed (AES-256-GCM under a key derived from the
//   master key, bound to its row), for the window; a failure releases the key,
//   so the retry runs again (a refused create wrote nothing).
//
// A wrapper of each service's implementation, as deadline.ts: every protocol and
// both gRPC paths call these (start.ts), after authentication and the rate
// limits, and inside the deadline check (a call already past its deadline never reserves).
import { createHmac } from 'node:crypto';
import { create, fromBinary, isMessage, toBinary, type DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { requestedOrg } from '../../api/context.js';
import { callerKey } from '../../access/caller.js';
import { KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import type { IdempotentAnswers } from '../../store/idempotent-answers.js';
import { seal, unseal } from '../oidc/keys.js';
import type { RegisteredService } from './rest.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Operations that take an Idempotency-Key, by "<service typeName>/<method name>": their answer is shown once. Elsewhere the header is ignored.
 * Not RegisterTOTP: its answer is the authenticator's secret, which must not outlive the registration in a kept answer;
 * sent again, it registers anew and replaces the pending one (nothing verified is lost).
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'keyhold.management.v1.ManagementService/AddOIDCApp',
  'keyhold.management.v1.ManagementService/RegenerateOIDCClientSecret',
  'keyhold.management.v1.ManagementService/AddPersonalAccessToken',
  'keyhold.management.v1.ManagementService/GenerateMachineSecret',
  'keyhold.management.v1.ManagementService/AddAppKey',
  'keyhold.user.v2.UserService/VerifyU2FRegistration',
  'keyhold.user.v2.UserService/VerifyPasskeyRegistration',
  'keyhold.user.v2.UserService/GenerateRecoveryCodes',
  'keyhold.user.v2.UserService/VerifyTOTPRegistration',
]);

/** How long an answer is kept for repeats, from the first request (docs/decisions.md). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** An execution still running after this long died with its process: its key may be run again. */
export const IDEMPOTENCY_RUNNING_SECONDS = 120;

/** 1–255 printable ASCII characters (space included), as the value arrives. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

function invalidKey(): KeyholdError {
  return new KeyholdError('IDEMPOTENCY_KEY_INVALID', {}, [
    violation('Idempotency-Key', { en: 'must be 1 to 255 printable ASCII characters', de: 'muss aus 1 bis 255 druckbaren ASCII-Zeichen bestehen' }),
  ]);
}

type Method = (request: unknown, context: HandlerContext) => unknown;

/** `service` with its IDEMPOTENT_METHODS taking an Idempotency-Key; its other methods as they are. */
export function withIdempotency(answers: IdempotentAnswers, keys: { names: Buffer; seal: Buffer }): (service: RegisteredService) => RegisteredService {
  const hmac = (...parts: (string | Uint8Array)[]) => {
    const mac = createHmac('sha256', keys.names);
    for (const part of parts) mac.update(typeof part === 'string' ? Buffer.from(part, 'utf8') : part).update('\0');
    return mac.digest('base64url');
  };
  const times = { windowSeconds: IDEMPOTENCY_WINDOW_SECONDS, runningSeconds: IDEMPOTENCY_RUNNING_SECONDS };

  const keyed = (method: DescMethod, fn: Method): Method => {
    const operation = `${method.parent.typeName}/${method.name}`;
    return async (request, context) => {
      const key = context.requestHeader.get(IDEMPOTENCY_HEADER);
      if (key === null) return fn(request, context);
      if (!VALID_KEY.test(key)) throw invalidKey();
      const caller = context.values.get(callerKey);
      if (!caller) throw new KeyholdError('UNAUTHENTICATED');
      const row = hmac('row', caller.userId, key);
      const org = requestedOrg(context.requestHeader) ?? '';
      const digest = hmac('request', operation, org, toBinary(method.input, request as never));

      const claim = await answers.reserve(row, digest, times);
      if (claim.kind === 'conflict') throw new KeyholdError('IDEMPOTENCY_KEY_REUSED');
      if (claim.kind === 'running') throw new KeyholdError('IDEMPOTENCY_KEY_IN_PROGRESS');
      if (claim.kind === 'answer') {
        const { row: sealedFor, answer } = JSON.parse(unseal(keys.seal, claim.sealed, 'idempotent answer')) as { row: string; answer: string };
        if (sealedFor !== row) throw new Error('a kept idempotent answer was sealed for another row');
        return fromBinary(method.output, Buffer.from(answer, 'base64'));
      }
      let result: unknown;
      try {
        result = await fn(request, context);
      } catch (e) {
        // Nothing was made: the retry runs again. A release that fails leaves the key running until its bound.
        await answers.release(row, claim.owner).catch(() => {});
        throw e;
      }
      const message = isMessage(result, method.output) ? result : create(method.output, result as never);
      const answer = Buffer.from(toBinary(method.output, message)).toString('base64');
      // The secret exists now: the answer goes out even when keeping it failed (a repeat then runs after the running bound).
      await answers.finish(row, claim.owner, seal(keys.seal, JSON.stringify({ row, answer }))).catch(() => {});
      return message;
    };
  };

  return (service) => {
    const original = service.impl as Record<string, Method | undefined>;
    const impl: Record<string, Method> = {};
    for (const method of service.desc.methods) {
      const fn = original[method.localName];
      if (typeof fn !== 'function') continue; // connect answers UNIMPLEMENTED
      const bound: Method = (request, context) => fn.call(original, request, context);
      impl[method.localName] = IDEMPOTENT_METHODS.has(`${service.desc.typeName}/${method.name}`) ? keyed(method, bound) : bound;
    }
    return { desc: service.desc, impl };
  };
}
