// The forced enrolment's choice (an org with forceMfa, a user without a second
// factor): every method a user may set up at the login, its step and the
// words of its choice. The enrolment pages list the others as buttons; the
// first is where a forced enrolment starts.
import type { LoginText } from '../../domain/i18n/login.js';

export const ENROLMENT_METHODS = {
  key: { step: 'enrolKey', label: 'enrollMethodKey' },
  passkey: { step: 'enrolPasskey', label: 'enrollMethodPasskey' },
  totp: { step: 'enrolTotp', label: 'enrollMethodTotp' },
} as const satisfies Record<string, { step: 'enrolKey' | 'enrolPasskey' | 'enrolTotp'; label: LoginText }>;

export type EnrolmentMethod = keyof typeof ENROLMENT_METHODS;

export const isEnrolmentMethod = (value: string): value is EnrolmentMethod => Object.hasOwn(ENROLMENT_METHODS, value);
