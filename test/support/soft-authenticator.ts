// A software authenticator: makes real WebAuthn registration responses
// (RegistrationResponseJSON) with a real key pair, for tests and the benchmark.
//
// It keeps one key pair and one credential id for its whole life, so the same
// key can be registered twice (to test CREDENTIAL_ALREADY_REGISTERED). Every
// byte is built here — CBOR, authenticator data, packed self-attestation — so a
// test can change exactly one thing through `flags`, `clientDataType`, `rpIdHash`
// or the `tamper` hooks, and the rest stays valid and correctly signed.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

// ---------------------------------------------------------------------------
// A small CBOR encoder (RFC 8949), enough for attestation objects and COSE keys.
// Independent of the decoder Keyhold uses, so the two check each other.

export type CborValue =
  | number
  | string
  | boolean
  | null
  | Uint8Array
  | CborValue[]
  | Map<CborValue, CborValue>
  | { [key: string]: CborValue };

function cborHead(major: number, length: number): number[] {
  const m = major << 5;
  if (length < 24) return [m | length];
  if (length < 0x100) return [m | 24, length];
  if (length < 0x10000) return [m | 25, length >> 8, length & 0xff];
  if (length < 0x100000000) return [m | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
  throw new RangeError('CBOR lengths above 2^32 are not needed here');
}

export function encodeCbor(value: CborValue): Uint8Array {
  const out: number[] = [];
  const write = (v: CborValue): void => {
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw new TypeError('only integers are encoded');
      if (v >= 0) out.push(...cborHead(0, v));
      else out.push(...cborHead(1, -1 - v));
    } else if (typeof v === 'string') {
      const bytes = new TextEncoder().encode(v);
      out.push(...cborHead(3, bytes.length), ...bytes);
    } else if (typeof v === 'boolean') {
      out.push(v ? 0xf5 : 0xf4);
    } else if (v === null) {
      out.push(0xf6);
    } else if (v instanceof Uint8Array) {
      out.push(...cborHead(2, v.length), ...v);
    } else if (Array.isArray(v)) {
      out.push(...cborHead(4, v.length));
      v.forEach(write);
    } else if (v instanceof Map) {
      out.push(...cborHead(5, v.size));
      for (const [k, item] of v) {
        write(k);
        write(item);
      }
    } else {
      const entries = Object.entries(v);
      out.push(...cborHead(5, entries.length));
      for (const [k, item] of entries) {
        write(k);
        write(item);
      }
    }
  };
  write(value);
  return Uint8Array.from(out);
}

// ---------------------------------------------------------------------------
// Keys

/** COSE algorithms this authenticator can hold a key for. */
export type SoftAlgorithm = -7 | -35 | -36 | -8 | -257;

interface KeySpec {
  generate(): { privateKey: KeyObject; publicKey: KeyObject };
  hash: string | null;
  cose(publicKey: KeyObject): Map<CborValue, CborValue>;
}

const b64 = (s: string | undefined): Uint8Array => Uint8Array.from(Buffer.from(s ?? '', 'base64url'));

type GeneratedKind = 'ec' | 'ed25519' | 'rsa';

/**
 * A fresh key pair, as KeyObjects that share nothing with the job that made it.
 *
 * Why not generateKeyPairSync's KeyObjects: Node 20 (seen on 20.20.2) can
 * deadlock when one is exported while the garbage collector destroys the
 * finished generation job that still shares the key — export holds the key's
 * mutex while allocating the result, the allocation runs the GC, and the job's
 * destructor waits for that same mutex (gdb: ~KeyGenJob → uv_mutex_lock under
 * NewStringFromOneByte). It hung the bench's load generator once in ~30,000
 * credentials. Encoded inside the job and re-imported, the keys are new objects.
 */
function generateDetached(kind: GeneratedKind, options: object): { privateKey: KeyObject; publicKey: KeyObject } {
  const pair = generateKeyPairSync(kind as 'ec', {
    ...(options as { namedCurve: string }),
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  return {
    privateKey: createPrivateKey({ key: pair.privateKey, format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: pair.publicKey, format: 'der', type: 'spki' }),
  };
}

function ec2(curve: string, coseCurve: number, alg: number, hash: string): KeySpec {
  return {
    generate: () => generateDetached('ec', { namedCurve: curve }),
    hash,
    cose(publicKey) {
      const jwk = publicKey.export({ format: 'jwk' });
      return new Map<CborValue, CborValue>([
        [1, 2], // kty: EC2
        [3, alg],
        [-1, coseCurve],
        [-2, b64(jwk.x)],
        [-3, b64(jwk.y)],
      ]);
    },
  };
}

const KEY_SPECS: Record<SoftAlgorithm, KeySpec> = {
  [-7]: ec2('P-256', 1, -7, 'sha256'),
  [-35]: ec2('P-384', 2, -35, 'sha384'),
  [-36]: ec2('P-521', 3, -36, 'sha512'),
  [-8]: {
    generate: () => generateDetached('ed25519', {}),
    hash: null,
    cose(publicKey) {
      const jwk = publicKey.export({ format: 'jwk' });
      return new Map<CborValue, CborValue>([
        [1, 1], // kty: OKP
        [3, -8],
        [-1, 6], // crv: Ed25519
        [-2, b64(jwk.x)],
      ]);
    },
  },
  [-257]: {
    generate: () => generateDetached('rsa', { modulusLength: 2048 }),
    hash: 'sha256',
    cose(publicKey) {
      const jwk = publicKey.export({ format: 'jwk' });
      return new Map<CborValue, CborValue>([
        [1, 3], // kty: RSA
        [3, -257],
        [-1, b64(jwk.n)],
        [-2, b64(jwk.e)],
      ]);
    },
  },
};

// ---------------------------------------------------------------------------
// The authenticator

export interface AuthenticatorFlagsInput {
  up?: boolean;
  uv?: boolean;
  be?: boolean;
  bs?: boolean;
  at?: boolean;
  ed?: boolean;
}

export interface RegistrationTamper {
  /** Rewrites the clientDataJSON text before it is hashed and signed. */
  clientDataJSON?: (json: string) => string;
  /** Rewrites authenticator data before it is signed (the signature covers the change). */
  authData?: (authData: Uint8Array) => Uint8Array;
  /** Rewrites the signature after signing (breaks it). */
  signature?: (signature: Uint8Array) => Uint8Array;
  /** Edits the attestation object map after signing, before CBOR encoding. */
  attestationObject?: (attestationObject: Map<CborValue, CborValue>) => void;
  /** Edits the finished JSON (e.g. to re-encode a member). */
  json?: (json: RegistrationResponseJSON) => void;
}

export interface MakeRegistrationOptions {
  /** base64url challenge from the creation options. */
  challenge: string;
  origin: string;
  rpId: string;
  /** 'packed' is self attestation, signed with the credential's own key. Default 'none'. */
  fmt?: 'none' | 'packed';
  /** Flags to set; defaults: up and at true, the rest false. */
  flags?: AuthenticatorFlagsInput;
  /** Default 'webauthn.create'. */
  clientDataType?: string;
  crossOrigin?: boolean;
  topOrigin?: string;
  /** Hash an RP ID other than `rpId` into authData (still correctly signed). */
  rpIdForHash?: string;
  signCount?: number;
  /** Default ['usb']. */
  transports?: string[];
  tamper?: RegistrationTamper;
}

export interface SoftAuthenticator {
  readonly alg: SoftAlgorithm;
  /** base64url of the credential id. */
  readonly credentialId: string;
  readonly credentialIdBytes: Uint8Array;
  readonly aaguid: Uint8Array;
  /** COSE_Key bytes of the public key, as they appear in authData. */
  readonly cosePublicKey: Uint8Array;
  makeRegistration(options: MakeRegistrationOptions): RegistrationResponseJSON;
  /** An authentication answer (AuthenticationResponseJSON) signed with this key: user present, verified only with `uv`. */
  makeAssertion(options: AssertionOptions): AuthenticationResponseJSON;
}

export interface AssertionOptions {
  challenge: string;
  origin: string;
  rpId: string;
  signCount?: number;
  /** Set the user-verified flag (a passkey's PIN or biometrics). Default false. */
  uv?: boolean;
  /** base64url user handle, as a discoverable credential returns it. Default none. */
  userHandle?: string;
}

export interface SoftAuthenticatorOptions {
  alg?: SoftAlgorithm;
  /** Default all zeros, like most authenticators with "none" attestation. */
  aaguid?: Uint8Array;
  /** Default 32 bytes. */
  credentialIdLength?: number;
}

function flagsByte(flags: AuthenticatorFlagsInput): number {
  const { up = true, uv = false, be = false, bs = false, at = true, ed = false } = flags;
  return (up ? 0x01 : 0) | (uv ? 0x04 : 0) | (be ? 0x08 : 0) | (bs ? 0x10 : 0) | (at ? 0x40 : 0) | (ed ? 0x80 : 0);
}

const sha256 = (data: Uint8Array | string): Uint8Array => Uint8Array.from(createHash('sha256').update(data).digest());
const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

export function createSoftAuthenticator(options: SoftAuthenticatorOptions = {}): SoftAuthenticator {
  const alg = options.alg ?? -7;
  const spec = KEY_SPECS[alg];
  if (!spec) throw new RangeError(`unsupported algorithm ${alg}`);
  const { privateKey, publicKey } = spec.generate();
  const credentialIdBytes = Uint8Array.from(randomBytes(options.credentialIdLength ?? 32));
  const aaguid = options.aaguid ?? new Uint8Array(16);
  const cosePublicKey = encodeCbor(spec.cose(publicKey));

  function makeRegistration(o: MakeRegistrationOptions): RegistrationResponseJSON {
    const clientData: Record<string, unknown> = {
      type: o.clientDataType ?? 'webauthn.create',
      challenge: o.challenge,
      origin: o.origin,
      crossOrigin: o.crossOrigin ?? false,
    };
    if (o.topOrigin !== undefined) clientData.topOrigin = o.topOrigin;
    let clientDataText = JSON.stringify(clientData);
    if (o.tamper?.clientDataJSON) clientDataText = o.tamper.clientDataJSON(clientDataText);
    const clientDataJSON = new TextEncoder().encode(clientDataText);

    const header = new Uint8Array(37);
    header.set(sha256(o.rpIdForHash ?? o.rpId), 0);
    header[32] = flagsByte(o.flags ?? {});
    new DataView(header.buffer).setUint32(33, o.signCount ?? 0, false);
    const idLength = Uint8Array.of(credentialIdBytes.length >> 8, credentialIdBytes.length & 0xff);
    let authData = Uint8Array.from([...header, ...aaguid, ...idLength, ...credentialIdBytes, ...cosePublicKey]);
    if (o.tamper?.authData) authData = Uint8Array.from(o.tamper.authData(authData));

    const attStmt = new Map<CborValue, CborValue>();
    if ((o.fmt ?? 'none') === 'packed') {
      // Packed self attestation (WebAuthn §8.2): sig over authData ‖ SHA-256(clientDataJSON)
      // with the credential's own private key; no x5c.
      const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
      let signature = Uint8Array.from(sign(spec.hash, signed, privateKey));
      if (o.tamper?.signature) signature = Uint8Array.from(o.tamper.signature(signature));
      attStmt.set('alg', alg);
      attStmt.set('sig', signature);
    }
    const attestationObject = new Map<CborValue, CborValue>([
      ['fmt', o.fmt ?? 'none'],
      ['attStmt', attStmt],
      ['authData', authData],
    ]);
    o.tamper?.attestationObject?.(attestationObject);

    const json: RegistrationResponseJSON = {
      id: base64url(credentialIdBytes),
      rawId: base64url(credentialIdBytes),
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientDataJSON),
        attestationObject: base64url(encodeCbor(attestationObject)),
        transports: o.transports ?? ['usb'],
      },
      authenticatorAttachment: 'cross-platform',
      clientExtensionResults: {},
    };
    o.tamper?.json?.(json);
    return json;
  }

  // WebAuthn §6.3.3 / §7.2: authData without attested credential data, signed with clientDataJSON's hash.
  function makeAssertion(o: AssertionOptions): AuthenticationResponseJSON {
    const clientDataJSON = new TextEncoder().encode(JSON.stringify({ type: 'webauthn.get', challenge: o.challenge, origin: o.origin, crossOrigin: false }));
    const authData = new Uint8Array(37);
    authData.set(sha256(o.rpId), 0);
    authData[32] = flagsByte({ at: false, uv: o.uv ?? false });
    new DataView(authData.buffer).setUint32(33, o.signCount ?? 0, false);
    const signature = sign(spec.hash, Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
    return {
      id: base64url(credentialIdBytes),
      rawId: base64url(credentialIdBytes),
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientDataJSON),
        authenticatorData: base64url(authData),
        signature: base64url(signature),
        ...(o.userHandle !== undefined ? { userHandle: o.userHandle } : {}),
      },
      authenticatorAttachment: 'cross-platform',
      clientExtensionResults: {},
    };
  }

  return {
    alg,
    credentialId: base64url(credentialIdBytes),
    credentialIdBytes,
    aaguid,
    cosePublicKey,
    makeRegistration,
    makeAssertion,
  };
}
