// The device sign-in pages' texts (src/server/oidc/device-pages.ts: RFC 8628's
// user-code entry, confirmation and done pages), in every language Keyhold speaks.
import type { Texts } from './text.js';

export const DEVICE_TEXTS = {
  title: { en: 'Sign in a device', de: 'Gerät anmelden' },
  enterCode: { en: 'Enter the code your device shows.', de: 'Gib den Code ein, den dein Gerät anzeigt.' },
  code: { en: 'Code', de: 'Code' },
  next: { en: 'Next', de: 'Weiter' },
  checkCode: {
    en: 'Check that your device shows this code before you go on.',
    de: 'Prüfe, dass dein Gerät diesen Code anzeigt, bevor du fortfährst.',
  },
  confirmTitle: { en: 'Sign in to {app} on your device?', de: 'Auf deinem Gerät bei {app} anmelden?' },
  confirmText: {
    en: 'Only continue if you started this sign-in yourself on a device you own. After your sign-in, the device gets access as you.',
    de: 'Fahre nur fort, wenn du diese Anmeldung selbst auf einem eigenen Gerät begonnen hast. Nach deiner Anmeldung erhält das Gerät Zugriff in deinem Namen.',
  },
  allow: { en: 'Continue and sign in', de: 'Fortfahren und anmelden' },
  deny: { en: 'Deny', de: 'Ablehnen' },
  notFound: { en: 'This code is unknown. Check it on your device and type it again.', de: 'Dieser Code ist unbekannt. Prüfe ihn auf deinem Gerät und gib ihn erneut ein.' },
  noCode: { en: 'Enter the code your device shows.', de: 'Gib den Code ein, den dein Gerät anzeigt.' },
  expired: { en: 'This code has expired. Start the sign-in on your device again.', de: 'Dieser Code ist abgelaufen. Starte die Anmeldung auf deinem Gerät erneut.' },
  used: { en: 'This code was already used. Start the sign-in on your device again.', de: 'Dieser Code wurde bereits verwendet. Starte die Anmeldung auf deinem Gerät erneut.' },
  denied: { en: 'Sign-in denied. The device gets no access.', de: 'Anmeldung abgelehnt. Das Gerät erhält keinen Zugriff.' },
  failed: { en: 'The sign-in did not complete ({error}). Start it on your device again.', de: 'Die Anmeldung wurde nicht abgeschlossen ({error}). Starte sie auf deinem Gerät erneut.' },
  formExpired: { en: 'This form has expired. Enter the code again.', de: 'Dieses Formular ist abgelaufen. Gib den Code erneut ein.' },
  slowDown: { en: 'Too many unknown codes. Wait {seconds} seconds, then type the code again.', de: 'Zu viele unbekannte Codes. Warte {seconds} Sekunden und gib den Code dann erneut ein.' },
  doneTitle: { en: 'Device signed in', de: 'Gerät angemeldet' },
  done: { en: 'Your device is signed in to {app}. You may close this window.', de: 'Dein Gerät ist bei {app} angemeldet. Du kannst dieses Fenster schließen.' },
} as const satisfies Record<string, Texts>;

export type DeviceText = keyof typeof DEVICE_TEXTS;
