// Transports are stored to be handed back as hints in later options. WebAuthn
// tells clients to ignore values they do not know, so unknown ones are dropped
// here rather than refused (go-webauthn's test data carries a "fake" one), and
// duplicates are removed.
const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

export function knownTransports(reported: readonly string[]): string[] {
  return [...new Set(reported.filter((t) => KNOWN_TRANSPORTS.has(t)))];
}
