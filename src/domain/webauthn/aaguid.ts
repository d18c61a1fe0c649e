// AAGUIDs are stored in their usual UUID spelling (8-4-4-4-12 lowercase hex), the
// form the FIDO Metadata Service and authenticator vendors publish.
export function formatAaguid(aaguid: Uint8Array): string {
  const hex = Buffer.from(aaguid.buffer, aaguid.byteOffset, aaguid.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
