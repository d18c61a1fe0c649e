// The parsing and checking steps signal a refusal by throwing a Rejection, so each
// step reads as a straight line of checks. verify-registration.ts is the only
// place that catches it and turns it into a { ok: false } result: nothing leaves
// this module as an exception for anything a client sent.
import type { RegistrationFailureReason } from './reasons.js';

export class Rejection extends Error {
  constructor(
    readonly reason: RegistrationFailureReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'Rejection';
  }
}

/** Throws the refusal; typed `never` so TypeScript narrows after a guard. */
export function reject(reason: RegistrationFailureReason, detail: string): never {
  throw new Rejection(reason, detail);
}
