// The login's steps, one per state: a state without its step does not compile
// (StepTable is a mapped type over every `step` of LoginState). Each step is
// one file in steps/ (its page and what its form's answer came to).
import { changePassword } from './steps/change-password.js';
import { codesShown } from './steps/codes-shown.js';
import { consent } from './steps/consent.js';
import { done } from './steps/done.js';
import { enrolKey } from './steps/enrol-key.js';
import { enrolPasskey } from './steps/enrol-passkey.js';
import { passkey } from './steps/passkey.js';
import { enrolTotp } from './steps/enrol-totp.js';
import { external } from './steps/external.js';
import { identify } from './steps/identify.js';
import { forgotPassword } from './steps/forgot-password.js';
import { resetSent } from './steps/reset-sent.js';
import { keyElsewhere } from './steps/key-elsewhere.js';
import { password } from './steps/password.js';
import { recoveryCode } from './steps/recovery-code.js';
import { register, registered } from './steps/register.js';
import { securityKey } from './steps/security-key.js';
import { totp } from './steps/totp.js';
import type { Step, StepTable } from './steps/step.js';
import type { LoginState } from './state.js';

export const STEPS: StepTable = {
  identify,
  password,
  changePassword,
  forgotPassword,
  resetSent,
  securityKey,
  enrolKey,
  codesShown,
  recoveryCode,
  keyElsewhere,
  consent,
  done,
  passkey,
  enrolPasskey,
  totp,
  enrolTotp,
  register,
  registered,
  external,
};

/** The step of a state. */
export const stepOf = <S extends LoginState>(state: S): Step<S> => STEPS[state.step] as unknown as Step<S>;
