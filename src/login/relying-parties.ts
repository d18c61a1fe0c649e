// Which of a user's security keys the login can ask for. The login is served
// at the issuer (every URL and redirect is the issuer's), so the keys it can
// use are those under an RP id the issuer's host belongs to — never chosen by
// the request's Host. Whether the user HAS a second factor is decided over all
// of the user's ready keys, wherever they work: a key this login cannot use
// refuses the login (saying where the key works) instead of letting the
// password alone through, and offers no enrolment of another key.
import { hostBelongsToRpId, loginRpIdsOf, originsOfRpId } from '../domain/webauthn/relying-party.js';

export interface RelyingParties {
  rpIds: readonly string[];
  origins: readonly string[];
}

export interface ReadyKey {
  credentialId: string;
  transports: string[];
  rpId: string;
}

/**
 * The RP ids whose keys work on the login page: the configured ones the
 * issuer's host belongs to, in configured order, provided the issuer's origin
 * is a configured WebAuthn origin (else no answer from the page verifies).
 * Empty: the login can neither ask for a key nor register one.
 */
export function loginRpIds(issuer: string, parties: RelyingParties): string[] {
  return loginRpIdsOf(issuer, parties.rpIds, parties.origins);
}

/** The ceremony runs under one RP id: the first of the login's that any of the keys has, with the keys under it. */
export function keysForLogin(keys: readonly ReadyKey[], loginIds: readonly string[]): { rpId: string; keys: ReadyKey[] } | undefined {
  const rpId = loginIds.find((id) => keys.some((k) => k.rpId === id));
  return rpId === undefined ? undefined : { rpId, keys: keys.filter((k) => k.rpId === rpId) };
}

/** Where each RP id of the keys works: its configured origins; none when the RP id is no longer configured. */
export function whereKeysWork(keys: readonly ReadyKey[], parties: RelyingParties): Array<{ rpId: string; origins: string[] }> {
  const ids = [...new Set(keys.map((k) => k.rpId))].sort();
  return ids.map((rpId) => ({ rpId, origins: parties.rpIds.includes(rpId) ? originsOfRpId(rpId, parties.origins) : [] }));
}

/**
 * What the operator is told at start: a login that cannot use keys at all, and
 * keys registered under RP ids no longer configured (their users cannot log in
 * until the RP id is configured again or the keys are removed). Counts and RP
 * ids only, nothing about a user.
 */
export function relyingPartyWarnings(issuer: string, parties: RelyingParties, readyKeys: ReadonlyArray<{ rpId: string; keys: number }>): Array<{ fields: Record<string, unknown>; message: string }> {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  if (loginRpIds(issuer, parties).length === 0) {
    const url = new URL(issuer);
    // Name the setting that disagrees with the issuer, with both values.
    const reason = !parties.rpIds.some((id) => hostBelongsToRpId(url.hostname, id))
      ? `KEYHOLD_ISSUER's host ${url.hostname} is none of KEYHOLD_WEBAUTHN_RP_IDS (${parties.rpIds.join(', ')}) nor under one of them`
      : `KEYHOLD_ISSUER's origin ${url.origin} is not in KEYHOLD_WEBAUTHN_ORIGINS (${parties.origins.join(', ')})`;
    warnings.push({
      fields: { issuer, rpIds: parties.rpIds, origins: parties.origins },
      message: `the login cannot use security keys: ${reason}; users with a key, and users of a forceMfa org, cannot log in`,
    });
  }
  for (const { rpId, keys } of readyKeys) {
    if (!parties.rpIds.includes(rpId)) {
      warnings.push({
        fields: { rpId, keys },
        message: 'security keys are registered under an RP id that is no longer configured (KEYHOLD_WEBAUTHN_RP_IDS): their users are refused at the login until it is configured again or the keys are removed',
      });
    }
  }
  return warnings;
}
