// The login UI's texts (src/server/oidc/login.ts, pages.ts), in every language
// Keyhold speaks (text.ts: a missing translation is a type error).
import type { Texts } from './text.js';

export const LOGIN_TEXTS = {
  title: { en: 'Sign in', de: 'Anmelden' },
  signInTo: { en: 'Sign in to {app}', de: 'Bei {app} anmelden' },
  username: { en: 'Username', de: 'Benutzername' },
  password: { en: 'Password', de: 'Passwort' },
  next: { en: 'Next', de: 'Weiter' },
  signIn: { en: 'Sign in', de: 'Anmelden' },
  notYou: { en: 'Not {username}? Use another account', de: 'Nicht {username}? Anderes Konto verwenden' },
  unknownOrWrong: { en: 'The username or the password is wrong.', de: 'Benutzername oder Passwort ist falsch.' },
  noPassword: { en: 'This account cannot sign in with a password.', de: 'Dieses Konto kann sich nicht mit einem Passwort anmelden.' },
  locked: { en: 'This account is locked or deactivated. Ask an administrator.', de: 'Dieses Konto ist gesperrt oder deaktiviert. Wende dich an eine Administratorin oder einen Administrator.' },
  slowDown: { en: 'Too many attempts. Wait {seconds} seconds and try again.', de: 'Zu viele Versuche. Warte {seconds} Sekunden und versuche es erneut.' },
  changePassword: { en: 'Choose a new password', de: 'Neues Passwort wählen' },
  changeRequired: { en: 'Your password must be changed before you continue.', de: 'Dein Passwort muss geändert werden, bevor du fortfährst.' },
  newPassword: { en: 'New password', de: 'Neues Passwort' },
  confirmPassword: { en: 'Repeat the new password', de: 'Neues Passwort wiederholen' },
  passwordsDiffer: { en: 'The two passwords differ.', de: 'Die beiden Passwörter stimmen nicht überein.' },
  save: { en: 'Save and continue', de: 'Speichern und weiter' },
  consentTitle: { en: '{app} asks for access', de: '{app} bittet um Zugriff' },
  consentScopes: { en: 'It will be able to read:', de: 'Die Anwendung darf lesen:' },
  offlineAccess: { en: 'stay signed in (refresh tokens)', de: 'angemeldet bleiben (Refresh-Tokens)' },
  allow: { en: 'Allow', de: 'Erlauben' },
  deny: { en: 'Deny', de: 'Ablehnen' },
  formExpired: { en: 'This form has expired. Start the sign-in again from the application.', de: 'Dieses Formular ist abgelaufen. Starte die Anmeldung in der Anwendung erneut.' },
  errorTitle: { en: 'Sign-in failed', de: 'Anmeldung fehlgeschlagen' },
  errorCode: { en: 'Error: {error}', de: 'Fehler: {error}' },
  redirectMismatch: {
    en: 'The redirect_uri sent by the application is not registered for it.',
    de: 'Die von der Anwendung gesendete redirect_uri ist für sie nicht registriert.',
  },
  redirectSent: { en: 'Sent:', de: 'Gesendet:' },
  redirectRegistered: { en: 'Registered redirect URIs of this app:', de: 'Registrierte Redirect-URIs dieser App:' },
  redirectNoneRegistered: { en: 'This app has no redirect URIs registered.', de: 'Für diese App sind keine Redirect-URIs registriert.' },
  redirectFix: {
    en: 'Register the exact URI at the app (management API: UpdateOIDCAppConfig, or the console), or send one of the registered ones.',
    de: 'Registriere genau diese URI bei der App (Management-API oder Konsole) oder sende eine der registrierten.',
  },
  redirectDiffers: { en: 'Closest registered URI differs at character {at}: “{registered}”.', de: 'Die ähnlichste registrierte URI weicht ab Zeichen {at} ab: „{registered}“.' },
  logoutTitle: { en: 'Sign out', de: 'Abmelden' },
  logoutQuestion: { en: 'Do you want to sign out of Keyhold?', de: 'Möchtest du dich von Keyhold abmelden?' },
  logoutYes: { en: 'Sign out', de: 'Abmelden' },
  logoutNo: { en: 'Stay signed in', de: 'Angemeldet bleiben' },
  loggedOut: { en: 'You are signed out.', de: 'Du bist abgemeldet.' },
  nativeDone: { en: 'Signed in. You may close this window and return to the app.', de: 'Angemeldet. Du kannst dieses Fenster schließen und zur App zurückkehren.' },
  nativeContinue: { en: 'Return to the app', de: 'Zur App zurückkehren' },
  notAllowed: { en: 'You have no access to this application.', de: 'Du hast keinen Zugriff auf diese Anwendung.' },
} as const satisfies Record<string, Texts>;

export type LoginText = keyof typeof LOGIN_TEXTS;
