// One-time means one-time under concurrency, for what the OpenID Provider
// keeps (docs/security.md "One-time artifacts under concurrency"). The
// library checks a record, then writes it: two requests at once (in one
// process or two) both pass the check. So the adapter (adapter.ts) makes each
// one-time write a conditional statement that exactly one request wins, and
// answers the losers here:
//
// - A consume (authorization code, refresh token, device code) lost to another
//   request is a replay: the grant and every token issued under it are revoked
//   (the winner's too, RFC 6749 §4.1.2 and §10.4), recorded as the library's
//   own grant.revoked, and the loser is answered invalid_grant — as the
//   library answers the same replay made one after the other.
// - A device code moves forward once (DEVICE_CODE_STEPS): one confirmation of
//   a user code takes it, one decision (the login's result, or a denial) ends
//   it; another request's step is refused and the code page says it was used.
// - An interaction is resumed once: the resume that takes it (deletes it as it
//   reads it) goes on; any other finds it gone, as a second resume after the
//   first does.
// - Keyhold's own saves of a record may name what the stored record must still
//   hold (saveIfStored), e.g. the login's second factor taking its challenge.
import { contextSlot } from '../request-context.js';
import Provider, { errors } from 'oidc-provider';
import type { OidcPayload, OidcStateStore, StoredExpectation } from '../../store/oidc-store.js';
import { ExtensionCheckFailed } from './extensions.js';
import { noteDeletedGrant } from './revoked-grants.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** What a request that lost the consume of a record is told: the library's answer to a replay of it. */
const REPLAY_ANSWERS: Readonly<Record<string, () => Error>> = {
  AuthorizationCode: () => new errors.InvalidGrant('authorization code already consumed'),
  RefreshToken: () => new errors.InvalidGrant('refresh token already used'),
  DeviceCode: () => new errors.InvalidGrant('device code already consumed'),
  // Two logins started with one request_uri: the one whose code was issued first used it.
  PushedAuthorizationRequest: () => new errors.InvalidRequestUri('request_uri is invalid, expired, or was already used'),
};

const replayAnswer = (model: string): Error => REPLAY_ANSWERS[model]?.() ?? new errors.InvalidGrant(`${model} already used`);

/**
 * The request lost the consume of `model` `id` to another: revokes the grant
 * the record was issued under and throws the replay's answer. The record may
 * be gone already (another loser revoked its grant): the answer is the same.
 */
export async function answerReplay(store: Pick<OidcStateStore, 'find' | 'revokeGrant'>, model: string, id: string): Promise<never> {
  const grantId = (await store.find(model, id))?.grantId;
  const grant = typeof grantId === 'string' ? await store.revokeGrant(grantId) : undefined;
  // Recorded once, by the request that revoked it (audit.ts), as the library's own revocation is.
  if (grant) {
    noteDeletedGrant(grantId!, grant);
    const ctx = (Provider as Any).ctx;
    ctx?.oidc?.provider?.emit('grant.revoked', ctx, grantId);
  }
  throw replayAnswer(model);
}

// The resume reads the interaction, then deletes it: two statements. Read there it is taken instead
// (deleted as it is read, one statement): the resume that took it goes on, any other finds none (the
// library's "interaction session not found"), as a second resume after the first does. The library's
// delete that follows in the same request finds it done. Not taken: a sign-in finished as another
// account than the browser's session holds, which the library keeps (or stores again) for the
// sign-out it asks first and resumes after; that one is read as it is, and deleted by its own resume.
const takenAtResume = new WeakMap<object, Set<string>>();

/** The current request when it is the library's resume of a sign-in (`route` resume), else undefined. */
function resumeRequest(): Any {
  const ctx = (Provider as Any).ctx;
  return ctx?.oidc?.route === 'resume' ? ctx : undefined;
}

/**
 * Whether a find of `model` is the resume's read of the interaction, which takes it (store.take),
 * and the account the browser's session holds (the take leaves a sign-in finished as another).
 */
export function takenWhenFound(model: string): { account?: string } | undefined {
  const ctx = model === 'Interaction' ? resumeRequest() : undefined;
  if (!ctx) return undefined;
  const account = ctx.oidc.session?.accountId;
  return { account: typeof account === 'string' && account ? account : undefined };
}

/** This request took the interaction `id` (its later delete is done already). */
export function noteTaken(id: string): void {
  const ctx = resumeRequest();
  if (!ctx) return;
  const taken = takenAtResume.get(ctx) ?? new Set<string>();
  taken.add(id);
  takenAtResume.set(ctx, taken);
}

/** Whether the interaction `id` was taken by this request and not stored again since; forgets it (`stored`: it is stored again). */
export function takenHere(id: string, stored = false): boolean {
  const ctx = resumeRequest();
  const taken = ctx ? takenAtResume.get(ctx) : undefined;
  if (!taken?.has(id)) return false;
  taken.delete(id);
  return !stored;
}

/** What a request whose delete of a one-time record found it gone is told. */
const DELETED_ONCE: Readonly<Record<string, () => Error>> = {
  // The interaction's resume (the library's resume action reads, then deletes it).
  Interaction: () => new errors.SessionNotFound('interaction session not found'),
};

/** The answer when this delete of `model` found nothing to delete; undefined when that is fine for the model. */
export const goneAnswer = (model: string): Error | undefined => DELETED_ONCE[model]?.();

/** A device code another request confirmed or decided first; the code page says it was used (device-pages.ts). */
export class DeviceCodeTaken extends errors.InvalidRequest {
  constructor() {
    super('this code was already confirmed or denied');
  }
}

/** What the stored device code must still hold for a save that… */
const DEVICE_CODE_STEPS = {
  /** …claims it for a sign-in (the code page's confirmation) or denies it there: nobody took or decided it. */
  untouched: [
    { path: ['inFlight'], equals: null },
    { path: ['accountId'], equals: null },
    { path: ['error'], equals: null },
  ],
  /** …stores the sign-in's outcome (the user, or the error): nobody decided it. */
  undecided: [
    { path: ['accountId'], equals: null },
    { path: ['error'], equals: null },
  ],
} as const satisfies Record<string, readonly StoredExpectation[]>;

/** The stored state a device code save moves on from; undefined for the code as the device got it (its first save). */
function deviceCodeStep(payload: OidcPayload): readonly StoredExpectation[] | undefined {
  const decided = payload.accountId !== undefined || payload.error !== undefined;
  if (decided) return payload.inFlight ? DEVICE_CODE_STEPS.undecided : DEVICE_CODE_STEPS.untouched;
  return payload.inFlight ? DEVICE_CODE_STEPS.untouched : undefined;
}

/** Per model, the stored state a save of it must find, and the answer when it no longer does (none: saved as it comes). */
const SAVE_STEPS: Readonly<Record<string, { expected: (payload: OidcPayload) => readonly StoredExpectation[] | undefined; refused: () => unknown }>> = {
  DeviceCode: { expected: deviceCodeStep, refused: () => new DeviceCodeTaken() },
};

/** The device code's fields DEVICE_CODE_STEPS read, as the library stores them. */
const DEVICE_CODE_FIELDS = ['inFlight', 'accountId', 'error'];

/**
 * Proves at start that the library still stores a device code's progress
 * under the fields the steps read: renamed, every save would pass as the
 * code's first and the steps would silently guard nothing.
 */
export function checkSingleUse(provider: Any): void {
  const stored = new Set<string>(provider.DeviceCode?.IN_PAYLOAD ?? []);
  const missing = DEVICE_CODE_FIELDS.filter((f) => !stored.has(f));
  if (missing.length) throw new ExtensionCheckFailed(`DeviceCode no longer stores ${missing.join(', ')} (single-use.ts DEVICE_CODE_STEPS)`);
}

/** Set around one save by saveIfStored. */
const expectedBySave = contextSlot<readonly StoredExpectation[]>('expected by save');

/** Thrown by the adapter when the expectation saveIfStored set no longer held. */
export class StoredRecordChanged extends Error {
  constructor(readonly model: string) {
    super(`the stored ${model} changed meanwhile`);
    this.name = 'StoredRecordChanged';
  }
}

/**
 * What the stored record must hold for this save of `model` — the caller's
 * (saveIfStored), else the model's step — and the error when it does not;
 * undefined: the save is stored as it comes.
 */
export function saveCondition(model: string, payload: OidcPayload): { expected: readonly StoredExpectation[]; refused: () => unknown } | undefined {
  const asked = expectedBySave.getStore();
  if (asked) return { expected: asked, refused: () => new StoredRecordChanged(model) };
  const step = SAVE_STEPS[model];
  const expected = step?.expected(payload);
  return step && expected ? { expected, refused: step.refused } : undefined;
}

/**
 * Runs `save` (one model's save through the adapter) so that it is stored only
 * while the stored record holds `expected`: false when another request
 * changed it first (nothing was saved).
 */
export async function saveIfStored(expected: readonly StoredExpectation[], save: () => Promise<unknown>): Promise<boolean> {
  try {
    await expectedBySave.run(expected, save);
    return true;
  } catch (e) {
    if (e instanceof StoredRecordChanged) return false;
    throw e;
  }
}
