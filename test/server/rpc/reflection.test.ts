// gRPC server reflection, as operators use it: the buf CLI (a Go client, not
// ours) lists the services and methods of a started Keyhold and calls
// AddOIDCApp with nothing but the URL and the admin token, over h2c and over
// TLS. Then the protocol itself through connect-node, v1 and v1alpha: the
// descriptors it sends are complete (every RPC's types resolve from them
// alone), each file is sent once per stream, and unknown names are answered
// in-band without ending the stream.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createFileRegistry, fromBinary, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { create } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v1 from '../../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { tempDir } from '../../support/databases.js';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const run = promisify(execFile);
const BUF = path.join(repoRoot, 'node_modules/.bin/buf');

/** `buf curl` with reflection; resolves with stdout, rejects with the CLI's output on a non-zero exit. */
async function bufCurl(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(BUF, ['curl', '--reflect', ...args], { timeout: 30_000 });
    return stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: number };
    throw new Error(`buf curl ${args.join(' ')} exited ${err.code}: ${err.stdout}${err.stderr}`);
  }
}

/** Files ordered so that each comes after its imports (what a FileDescriptorSet needs); an import not among them throws. */
function importsFirst(files: FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const out: FileDescriptorProto[] = [];
  const visit = (f: FileDescriptorProto) => {
    if (out.includes(f)) return;
    for (const name of f.dependency) {
      const dep = byName.get(name);
      if (!dep) throw new Error(`${f.name} imports ${name}, which reflection did not send`);
      visit(dep);
    }
    out.push(f);
  };
  files.forEach(visit);
  return out;
}

const API_SERVICES = [
  'keyhold.admin.v1.AdminService',
  'keyhold.auth.v1.AuthService',
  'keyhold.management.v1.ManagementService',
  'keyhold.org.v2.OrganizationService',
  'keyhold.user.v2.UserService',
];
const OPERATIONAL_SERVICES = ['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];

/** List, then AddProject and AddOIDCApp, all through reflection; `base` is the server's URL. */
async function listAndCall(kh: TestKeyhold, base: string, connection: string[]) {
  const services = (await bufCurl([...connection, '--list-services', base])).trim().split('\n');
  expect(services.sort()).toEqual([...API_SERVICES, ...OPERATIONAL_SERVICES].sort());

  const methods = (await bufCurl([...connection, '--list-methods', base])).trim().split('\n');
  expect(methods).toContain('keyhold.management.v1.ManagementService/AddOIDCApp');
  expect(methods).toContain('keyhold.user.v2.UserService/VerifyU2FRegistration');
  expect(methods).toEqual(expect.arrayContaining(['RegisterPasskey', 'VerifyPasskeyRegistration', 'ListPasskeys', 'RemovePasskey'].map((m) => `keyhold.user.v2.UserService/${m}`)));
  expect(methods).toContain('grpc.health.v1.Health/Watch');

  const auth = ['-H', `authorization: Bearer ${kh.adminToken}`];
  const project = JSON.parse(
    await bufCurl([...connection, '--protocol', 'grpc', ...auth, '-d', '{"name":"Reflected"}', `${base}/keyhold.management.v1.ManagementService/AddProject`]),
  );
  expect(project.id).toMatch(/^[0-9a-z]{26}$/);
  const app = JSON.parse(
    await bufCurl([
      ...connection,
      '--protocol',
      'grpc',
      ...auth,
      '-d',
      JSON.stringify({
        projectId: project.id,
        name: 'Reflected app',
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        redirectUris: ['https://app.example.com/cb'],
        clockSkew: '2s',
      }),
      `${base}/keyhold.management.v1.ManagementService/AddOIDCApp`,
    ]),
  );
  expect(app.clientId).toMatch(/^[0-9a-z]{26}$/);
  expect(app.clientSecret.length).toBeGreaterThan(20);
  // The app is there, read back the same way.
  const got = JSON.parse(
    await bufCurl([...connection, ...auth, '-d', JSON.stringify({ projectId: project.id, appId: app.appId }), `${base}/keyhold.management.v1.ManagementService/GetAppByID`]),
  );
  expect(got.app.oidcConfig.clockSkew).toBe('2s');
}

describe('reflection over h2c (prior knowledge)', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold();
  });
  afterAll(async () => kh?.close());

  it('buf curl --reflect lists every service and method and calls AddOIDCApp', async () => {
    await listAndCall(kh, `http://127.0.0.1:${kh.port}`, ['--http2-prior-knowledge']);
  });

  it('buf curl over the Connect protocol (its default for reflection) lists the same services', async () => {
    const services = (await bufCurl(['--http2-prior-knowledge', '--list-services', `http://127.0.0.1:${kh.port}`])).trim().split('\n');
    expect(services).toContain('keyhold.management.v1.ManagementService');
  });

  it.each([
    ['v1', v1],
    ['v1alpha', v1alpha],
  ] as const)('%s: the descriptors sent resolve every RPC of every service, each file sent once per stream', async (_name, version) => {
    const client = createClient(version.ServerReflection as typeof v1.ServerReflection, createGrpcTransport({ baseUrl: `http://127.0.0.1:${kh.port}` }));
    const questions: v1.ServerReflectionRequest['messageRequest'][] = [
      { case: 'listServices', value: '' },
      ...API_SERVICES.map((s) => ({ case: 'fileContainingSymbol' as const, value: s })),
      { case: 'fileContainingSymbol', value: 'keyhold.management.v1.ManagementService.AddOIDCApp' },
      { case: 'fileContainingSymbol', value: 'no.such.Symbol' },
      { case: 'fileByFilename', value: 'google/protobuf/duration.proto' },
      { case: 'fileByFilename', value: 'no/such/file.proto' },
      { case: 'allExtensionNumbersOfType', value: 'google.protobuf.MethodOptions' },
      { case: 'fileContainingExtension', value: create(v1.ExtensionRequestSchema, { containingType: 'google.protobuf.MethodOptions', extensionNumber: 72295728 }) },
    ];
    async function* requests() {
      for (const messageRequest of questions) yield { host: 'localhost', messageRequest };
    }
    const answers = [];
    // No token: reflection is public.
    for await (const res of client.serverReflectionInfo(requests() as never)) answers.push(res);
    expect(answers).toHaveLength(questions.length);

    const [list, ...rest] = answers;
    expect(list.validHost).toBe('localhost');
    expect(list.messageResponse.case).toBe('listServicesResponse');
    const names = list.messageResponse.case === 'listServicesResponse' ? list.messageResponse.value.service.map((s) => s.name) : [];
    expect(names.sort()).toEqual([...API_SERVICES, ...OPERATIONAL_SERVICES].sort());

    // The four service answers: each starts with the file asked for, then only
    // imports not sent before on this stream; together they describe every RPC.
    const answered = rest
      .slice(0, API_SERVICES.length)
      .map((a) => (a.messageResponse.case === 'fileDescriptorResponse' ? a.messageResponse.value.fileDescriptorProto : []).map((b) => fromBinary(FileDescriptorProtoSchema, b)));
    const seen = new Set<string>();
    for (const [asked, ...imports] of answered) {
      for (const file of imports) {
        expect(seen.has(file.name), `${file.name} sent twice`).toBe(false);
        seen.add(file.name);
      }
      seen.add(asked.name);
    }
    const protos = [...new Map(answered.flat().map((p) => [p.name, p])).values()];
    const fileNames = protos.map((p) => p.name);
    expect(fileNames).toEqual(expect.arrayContaining(['google/api/annotations.proto', 'google/api/http.proto', 'google/protobuf/descriptor.proto', 'google/protobuf/duration.proto']));
    // A registry built from what the stream sent, nothing else: a missing import throws here.
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: importsFirst(protos) }));
    for (const serviceName of API_SERVICES) {
      const service = registry.getService(serviceName);
      expect(service, serviceName).toBeDefined();
      for (const method of service!.methods) {
        const reachable = (m: DescMessage) => registry.getMessage(m.typeName);
        expect(reachable(method.input), method.name).toBeDefined();
        expect(reachable(method.output), method.name).toBeDefined();
      }
    }

    const [byMethod, unknownSymbol, duration, unknownFile, extensionNumbers, extensionFile] = rest.slice(API_SERVICES.length);
    // The method's file was sent on this stream already: it comes again (asked for), its imports do not.
    expect(byMethod.messageResponse.case).toBe('fileDescriptorResponse');
    if (byMethod.messageResponse.case === 'fileDescriptorResponse') {
      const sent = byMethod.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b).name);
      expect(sent).toEqual(['keyhold/management/v1/management.proto']);
    }
    for (const unknown of [unknownSymbol, unknownFile]) {
      expect(unknown.messageResponse.case).toBe('errorResponse');
      expect(unknown.messageResponse.value).toMatchObject({ errorCode: 5 });
    }
    expect(duration.messageResponse.case).toBe('fileDescriptorResponse');
    expect(extensionNumbers.messageResponse).toMatchObject({ case: 'allExtensionNumbersResponse', value: { baseTypeName: 'google.protobuf.MethodOptions', extensionNumber: [72295728] } });
    expect(extensionFile.messageResponse.case).toBe('fileDescriptorResponse');
    if (extensionFile.messageResponse.case === 'fileDescriptorResponse') {
      expect(fromBinary(FileDescriptorProtoSchema, extensionFile.messageResponse.value.fileDescriptorProto[0]).name).toBe('google/api/annotations.proto');
    }
    // Each answer repeats its question.
    expect(unknownSymbol.originalRequest?.messageRequest).toEqual({ case: 'fileContainingSymbol', value: 'no.such.Symbol' });
  });
});

describe('reflection over TLS', () => {
  let kh: TestKeyhold;
  let cert: string;
  beforeAll(async () => {
    const dir = await tempDir('keyhold-reflect-tls-');
    cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
    expect(fs.existsSync(cert)).toBe(true);
    kh = await startTestKeyhold({ env: { KEYHOLD_TLS_CERT: cert, KEYHOLD_TLS_KEY: key } });
  });
  afterAll(async () => kh?.close());

  it('buf curl --reflect over https (h2 by ALPN) lists every service and calls AddOIDCApp', async () => {
    await listAndCall(kh, `https://localhost:${kh.port}`, ['--cacert', cert]);
  });
});
