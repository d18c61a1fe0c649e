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
  lockedOut: {
    en: 'Too many wrong passwords: this account is now locked. Ask an administrator to unlock it.',
    de: 'Zu viele falsche Passwörter: Dieses Konto ist jetzt gesperrt. Bitte eine Administratorin oder einen Administrator, es zu entsperren.',
  },
  slowDown: { en: 'Too many attempts. Wait {seconds} seconds and try again.', de: 'Zu viele Versuche. Warte {seconds} Sekunden und versuche es erneut.' },
  changePassword: { en: 'Choose a new password', de: 'Neues Passwort wählen' },
  changeRequired: { en: 'Your password must be changed before you continue.', de: 'Dein Passwort muss geändert werden, bevor du fortfährst.' },
  newPassword: { en: 'New password', de: 'Neues Passwort' },
  confirmPassword: { en: 'Repeat the new password', de: 'Neues Passwort wiederholen' },
  passwordsDiffer: { en: 'The two passwords differ.', de: 'Die beiden Passwörter stimmen nicht überein.' },
  save: { en: 'Save and continue', de: 'Speichern und weiter' },
  consentTitle: { en: '{app} asks for access', de: '{app} bittet um Zugriff' },
  allow: { en: 'Allow', de: 'Erlauben' },
  deny: { en: 'Deny', de: 'Ablehnen' },
  formExpired: { en: 'This form has expired. Start the sign-in again from the application.', de: 'Dieses Formular ist abgelaufen. Starte die Anmeldung in der Anwendung erneut.' },
  errorTitle: { en: 'Sign-in failed', de: 'Anmeldung fehlgeschlagen' },
  unavailableTitle: { en: 'Sign-in is unavailable right now', de: 'Die Anmeldung ist gerade nicht verfügbar' },
  unavailable: {
    en: 'The server cannot reach its database right now. Nothing is lost: try again in a moment.',
    de: 'Der Server erreicht gerade seine Datenbank nicht. Es geht nichts verloren: versuche es gleich noch einmal.',
  },
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
  redirectWhereListed: {
    en: "The app's developer finds its registered redirect URIs in the Keyhold console or with the management API (GetAppByID): register this URI there, or send one of those.",
    de: 'Die Entwicklerin oder der Entwickler der App findet die registrierten Redirect-URIs in der Keyhold-Konsole oder über die Management-API (GetAppByID): dort diese URI registrieren oder eine der registrierten senden.',
  },
  redirectDiffers: { en: 'Closest registered URI differs at character {at}: “{registered}”.', de: 'Die ähnlichste registrierte URI weicht ab Zeichen {at} ab: „{registered}“.' },
  logoutTitle: { en: 'Sign out', de: 'Abmelden' },
  logoutQuestion: { en: 'Do you want to sign out of Keyhold?', de: 'Möchtest du dich von Keyhold abmelden?' },
  logoutYes: { en: 'Sign out', de: 'Abmelden' },
  logoutNo: { en: 'Stay signed in', de: 'Angemeldet bleiben' },
  loggedOut: { en: 'You are signed out.', de: 'Du bist abgemeldet.' },
  continueText: {
    en: 'Your browser goes on to Keyhold with the request of the app you came from. Press Continue.',
    de: 'Dein Browser geht mit der Anfrage der App, von der du kommst, weiter zu Keyhold. Drücke auf Weiter.',
  },
  continueButton: { en: 'Continue', de: 'Weiter' },
  nativeDone: { en: 'Signed in. You may close this window and return to the app.', de: 'Angemeldet. Du kannst dieses Fenster schließen und zur App zurückkehren.' },
  nativeContinue: { en: 'Return to the app', de: 'Zur App zurückkehren' },
  notAllowed: { en: 'You have no access to this application.', de: 'Du hast keinen Zugriff auf diese Anwendung.' },
  keyTitle: { en: 'Security key', de: 'Sicherheitsschlüssel' },
  keyPrompt: { en: 'Insert or touch your security key to finish signing in as {username}.', de: 'Stecke oder berühre deinen Sicherheitsschlüssel, um die Anmeldung als {username} abzuschließen.' },
  keyUse: { en: 'Use my security key', de: 'Meinen Sicherheitsschlüssel verwenden' },
  keyNoScript: { en: 'The security key step needs JavaScript in this browser.', de: 'Für den Sicherheitsschlüssel wird JavaScript in diesem Browser benötigt.' },
  enrollTitle: { en: 'Add a security key', de: 'Sicherheitsschlüssel hinzufügen' },
  enrollPrompt: {
    en: 'Your organization requires a security key to sign in, and {username} has none yet. Insert your key and register it now; it then finishes this sign-in.',
    de: 'Deine Organisation verlangt einen Sicherheitsschlüssel zur Anmeldung, und {username} hat noch keinen. Stecke deinen Schlüssel ein und registriere ihn jetzt; damit wird diese Anmeldung abgeschlossen.',
  },
  enrollUse: { en: 'Register my security key', de: 'Meinen Sicherheitsschlüssel registrieren' },
  enrollKeyName: { en: 'Security key (added at sign-in)', de: 'Sicherheitsschlüssel (bei der Anmeldung hinzugefügt)' },
  keyElsewhereTitle: { en: 'Sign in where your security key works', de: 'Dort anmelden, wo dein Sicherheitsschlüssel gilt' },
  keyElsewhere: {
    en: 'The security key of {username} is registered for another address and cannot be used here, so this sign-in cannot finish. It works at:',
    de: 'Der Sicherheitsschlüssel von {username} ist für eine andere Adresse registriert und kann hier nicht verwendet werden, daher kann diese Anmeldung nicht abgeschlossen werden. Er gilt bei:',
  },
  keyRetired: {
    en: '{rpId}, which this Keyhold no longer accepts: ask an administrator',
    de: '{rpId}, was dieses Keyhold nicht mehr akzeptiert: wende dich an eine Administratorin oder einen Administrator',
  },
  enrollUnavailable: {
    en: 'Your organization requires a security key, but none can be registered at this address. Ask an administrator.',
    de: 'Deine Organisation verlangt einen Sicherheitsschlüssel, aber an dieser Adresse kann keiner registriert werden. Wende dich an eine Administratorin oder einen Administrator.',
  },
  // A lost key: the recovery code.
  recoveryLink: { en: 'Lost your key? Use a recovery code', de: 'Schlüssel verloren? Wiederherstellungscode verwenden' },
  recoveryTitle: { en: 'Use a recovery code', de: 'Wiederherstellungscode verwenden' },
  recoveryPrompt: {
    en: 'Type one of the recovery codes you saved when you added your first security key, to finish signing in as {username}. Each code works once.',
    de: 'Gib einen der Wiederherstellungscodes ein, die du beim Hinzufügen deines ersten Sicherheitsschlüssels gespeichert hast, um die Anmeldung als {username} abzuschließen. Jeder Code gilt nur einmal.',
  },
  recoveryCode: { en: 'Recovery code', de: 'Wiederherstellungscode' },
  recoveryUse: { en: 'Continue', de: 'Weiter' },
  recoveryBack: { en: 'Use my security key instead', de: 'Doch meinen Sicherheitsschlüssel verwenden' },
  codesTitle: { en: 'Save your recovery codes', de: 'Speichere deine Wiederherstellungscodes' },
  codesPrompt: {
    en: 'If you lose your security key, each of these codes signs you in once in its place. Keep them somewhere safe, away from the key: they are shown only now.',
    de: 'Wenn du deinen Sicherheitsschlüssel verlierst, meldet dich jeder dieser Codes einmal an seiner Stelle an. Bewahre sie sicher und getrennt vom Schlüssel auf: sie werden nur jetzt angezeigt.',
  },
  codesShownOnce: {
    en: 'Your recovery codes were shown when your key was added. If you did not save them, generate new ones once you are signed in.',
    de: 'Deine Wiederherstellungscodes wurden beim Hinzufügen des Schlüssels angezeigt. Falls du sie nicht gespeichert hast, erzeuge nach der Anmeldung neue.',
  },
  codesContinue: { en: 'I saved them, continue', de: 'Gespeichert, weiter' },
} as const satisfies Record<string, Texts>;

export type LoginText = keyof typeof LOGIN_TEXTS;
