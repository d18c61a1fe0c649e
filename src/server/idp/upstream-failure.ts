// Why an exchange with another identity provider failed, as the log says it.

/** Why an exchange failed: `denied` the person (or the upstream) said no; `refused` the answer failed a check; `unavailable` the upstream could not be reached. */
export type FailureKind = 'denied' | 'refused' | 'unavailable';

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** The upstream's error or the failed check, for the log (never the code, tokens or secret). */
    readonly detail: string,
  ) {
    super(`upstream ${kind}: ${detail}`);
    this.name = 'UpstreamFailure';
  }
}
