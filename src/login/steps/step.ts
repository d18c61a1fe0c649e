// What a step is: a page for its state (render) and what its form's answer
// came to (submit → an outcome for flow.ts). A step moves the login only
// through `apply` (flow.ts `next`, then the interaction port's save).
import type { Language } from '../../domain/i18n/language.js';
import type { GuessClient } from '../../domain/identity/guess-buckets.js';
import type { SecondFactorKind, SecondFactorOutcome } from '../observer.js';
import type { LoginOutcome } from '../flow.js';
import type { Problem } from '../pages/key.js';
import type { LoginInteraction, LoginPorts } from '../ports.js';
import type { LoginState, LoginStep, StateOf } from '../state.js';

export type { Problem };

/** A page to send: its title and body (in the layout's frame), its status, and one of Keyhold's own scripts. */
export interface Page {
  title: string;
  body: string;
  status?: number;
  script?: string;
}

/** What rendering a state came to: a page; the login's page again (303: the state moved meanwhile); or an outcome to apply at once (a consent nobody needs to see). */
export type Shown = { page: Page } | { again: true } | { outcome: LoginOutcome };

/** What a submitted form came to: its outcome, and what the next page says (a refusal) or is (the answer's own page, e.g. recovery codes shown once). */
export interface Submitted {
  outcome: LoginOutcome;
  problem?: Problem;
  page?: Page;
}

export interface StepContext {
  lang: Language;
  interaction: LoginInteraction;
  ports: LoginPorts;
  /** The form token field every form carries. */
  hidden: string;
  /** The submitted form's fields (parsed, within the 16 KiB limit). */
  body: Record<string, unknown>;
  /** A text field of the form, at most 1 KiB; '' when absent. */
  field(name: string): string;
  /** Who guesses for `userId` (its address; its known-browser id for the user). */
  guessClient(userId: string | undefined): GuessClient;
  /** Whether this browser signed in to `userId` before (a lock is told only to it). */
  knownTo(userId: string | undefined): boolean;
  /**
   * Moves the login: next(current, outcome), saved. With `ifStill`, saved only
   * while the stored state is still the one this request read (a challenge
   * handed out or taken): undefined when another request moved it first.
   */
  apply(outcome: LoginOutcome, opts?: { ifStill?: boolean }): Promise<LoginState | undefined>;
  /** A second factor's outcome, for the operator (metrics.ts keyhold_second_factors_total). */
  secondFactor(kind: SecondFactorKind, outcome: SecondFactorOutcome): void;
  issuer: string;
  now(): number;
}

/**
 * A step of state S whose forms post the actions A: each step names its own
 * union, so a submit that branches on an action it does not take, or a
 * misspelt one, does not compile. The routes see every step as taking strings
 * (they check `actions` before calling `submit`).
 */
export interface Step<S extends LoginState, A extends string = string> {
  /** The form actions (POST /ui/login/<uid>/<action>) this step takes. */
  actions: readonly A[];
  render(ctx: StepContext, state: S, problem?: Problem): Promise<Shown>;
  submit(ctx: StepContext, state: S, action: A): Promise<Submitted>;
}

/** The step table's type: a step for every state, each taking its own state. */
export type StepTable = { readonly [K in LoginStep]: Step<StateOf<K>> };
