// Micro-benchmark: the strict JSON reader (src/domain/json/strict-json.ts)
// against what fastify did before (secure-json-parse over a UTF-8 string) and
// bare JSON.parse, on the REST AddOIDCApp body of bench/worker.ts and on a
// WebAuthn-sized body. Run: node --import tsx bench/strict-json.ts
import secureJson from 'secure-json-parse';
import { readStrictJson } from '../src/domain/json/strict-json.js';

const addOidcApp = Buffer.from(
  JSON.stringify({
    name: 'bench 1700000000000 add-oidc-app 12345',
    redirectUris: ['https://app.example.com/auth/callback'],
    postLogoutRedirectUris: ['https://app.example.com/signed-out'],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
  }),
);
const credential = Buffer.from(
  JSON.stringify({
    tokenName: 'key',
    publicKeyCredential: {
      id: 'x'.repeat(86),
      rawId: 'x'.repeat(86),
      type: 'public-key',
      response: { clientDataJSON: 'y'.repeat(300), attestationObject: 'z'.repeat(1200), transports: ['usb', 'nfc'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    },
  }),
);

const candidates: Record<string, (b: Buffer) => unknown> = {
  'JSON.parse(utf8 string)': (b) => JSON.parse(b.toString('utf8')),
  'fastify before (secure-json-parse)': (b) => secureJson.parse(b.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' }),
  'readStrictJson': (b) => readStrictJson(b),
};

function measure(fn: (b: Buffer) => unknown, body: Buffer): number {
  const rounds = 200_000;
  for (let i = 0; i < 20_000; i++) fn(body);
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) fn(body);
  return Number(process.hrtime.bigint() - started) / rounds / 1000; // µs per call
}

for (const [label, body] of [['AddOIDCApp REST body', addOidcApp], ['VerifyU2FRegistration-sized body', credential]] as const) {
  console.log(`${label} (${body.length} bytes)`);
  for (const [name, fn] of Object.entries(candidates)) {
    const best = Math.min(measure(fn, body), measure(fn, body), measure(fn, body));
    console.log(`  ${name.padEnd(38)} ${best.toFixed(2)} µs`);
  }
}
