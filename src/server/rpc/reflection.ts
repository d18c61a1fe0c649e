// gRPC server reflection (grpc.reflection.v1 and its older name v1alpha), so
// that buf curl, grpcurl and similar tools can list and call every RPC without
// a copy of proto/. The answers come from the descriptors Keyhold serves with
// (the generated gen/ files: each DescFile holds its FileDescriptorProto and
// its imports), so reflection cannot describe anything but what is served.
//
// Why not @grpc/reflection: it serves a grpc-js server from proto-loader
// definitions; Keyhold's services are connect services over protobuf-es.
//
// Protocol (grpc/reflection/v1/reflection.proto): one bidirectional stream,
// one response per request, in order. A file answer carries the file asked
// for and, transitively, every file it imports that this stream has not been
// sent yet (clients keep what they got; grpc-go does the same). Questions
// about unknown names are answered in-band with an ErrorResponse (NOT_FOUND),
// the stream goes on.
import { toBinary, type DescFile, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { ServerReflection as ServerReflectionV1, type ServerReflectionRequest } from '../../../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1alpha } from '../../../gen/grpc/reflection/v1alpha/reflection_pb.js';
import type { RegisteredService } from './rest.js';

/** Both names of the protocol; their messages have the same fields and numbers. */
export const REFLECTION_SERVICES: readonly DescService[] = [ServerReflectionV1, ServerReflectionV1alpha];

/** What the descriptors hold, indexed once at start-up. */
interface Index {
  services: string[];
  /** By import path, e.g. "google/protobuf/duration.proto". */
  files: Map<string, DescFile>;
  /** Fully-qualified symbol (service, method, message, field, enum, enum value, extension) → its file. */
  symbols: Map<string, DescFile>;
  /** Extended message → extension number → file declaring the extension. */
  extensions: Map<string, Map<number, DescFile>>;
  /** Serialized FileDescriptorProto of each file, made once. */
  bytes: Map<DescFile, Uint8Array>;
}

function indexOf(services: readonly DescService[]): Index {
  const index: Index = { services: services.map((s) => s.typeName), files: new Map(), symbols: new Map(), extensions: new Map(), bytes: new Map() };
  const addMessage = (m: DescMessage, file: DescFile) => {
    index.symbols.set(m.typeName, file);
    for (const f of m.fields) index.symbols.set(`${m.typeName}.${f.name}`, file);
    for (const o of m.oneofs) index.symbols.set(`${m.typeName}.${o.name}`, file);
    for (const n of m.nestedMessages) addMessage(n, file);
    for (const e of m.nestedEnums) addEnum(e, file);
    for (const x of m.nestedExtensions) addExtension(x, file);
  };
  const addEnum = (e: DescFile['enums'][number], file: DescFile) => {
    index.symbols.set(e.typeName, file);
    // Enum values are scoped beside their enum, as in protoc.
    const scope = e.typeName.slice(0, e.typeName.length - e.name.length);
    for (const v of e.values) index.symbols.set(`${scope}${v.name}`, file);
  };
  const addExtension = (x: DescFile['extensions'][number], file: DescFile) => {
    index.symbols.set(x.typeName, file);
    const byNumber = index.extensions.get(x.extendee.typeName) ?? new Map<number, DescFile>();
    byNumber.set(x.number, file);
    index.extensions.set(x.extendee.typeName, byNumber);
  };
  const addFile = (file: DescFile) => {
    // DescFile.name lacks the ".proto" suffix; clients ask by the import path.
    if (index.files.has(file.proto.name)) return;
    index.files.set(file.proto.name, file);
    index.bytes.set(file, toBinary(FileDescriptorProtoSchema, file.proto));
    for (const s of file.services) {
      index.symbols.set(s.typeName, file);
      for (const m of s.methods) index.symbols.set(`${s.typeName}.${m.name}`, file);
    }
    for (const m of file.messages) addMessage(m, file);
    for (const e of file.enums) addEnum(e, file);
    for (const x of file.extensions) addExtension(x, file);
    for (const d of file.dependencies) addFile(d);
  };
  for (const s of services) addFile(s.file);
  return index;
}

/** The response fields of either protocol version (without $typeName). */
type Answer =
  | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
  | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } };

function notFound(what: string): Answer {
  return { case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } };
}

/** One stream's answers: files already sent on it are not sent again. */
function answerer(index: Index) {
  const sent = new Set<DescFile>();
  const withImports = (file: DescFile): Answer => {
    const out: Uint8Array[] = [];
    const visit = (f: DescFile, asked: boolean) => {
      if (sent.has(f) && !asked) return;
      sent.add(f);
      out.push(index.bytes.get(f)!);
      for (const d of f.dependencies) visit(d, false);
    };
    visit(file, true);
    return { case: 'fileDescriptorResponse', value: { fileDescriptorProto: out } };
  };
  return (question: ServerReflectionRequest['messageRequest']): Answer => {
    switch (question.case) {
      case 'listServices':
        return { case: 'listServicesResponse', value: { service: index.services.map((name) => ({ name })) } };
      case 'fileByFilename': {
        const file = index.files.get(question.value);
        return file ? withImports(file) : notFound(`file "${question.value.slice(0, 200)}"`);
      }
      case 'fileContainingSymbol': {
        const file = index.symbols.get(question.value.replace(/^\./, ''));
        return file ? withImports(file) : notFound(`symbol "${question.value.slice(0, 200)}"`);
      }
      case 'fileContainingExtension': {
        const { containingType, extensionNumber } = question.value;
        const file = index.extensions.get(containingType.replace(/^\./, ''))?.get(extensionNumber);
        return file ? withImports(file) : notFound(`extension ${extensionNumber} of "${containingType.slice(0, 200)}"`);
      }
      case 'allExtensionNumbersOfType': {
        const name = question.value.replace(/^\./, '');
        // A known message without extensions has an empty list; an unknown name is not found.
        const known = index.symbols.has(name);
        if (!known) return notFound(`type "${question.value.slice(0, 200)}"`);
        const numbers = [...(index.extensions.get(name)?.keys() ?? [])].sort((a, b) => a - b);
        return { case: 'allExtensionNumbersResponse', value: { baseTypeName: name, extensionNumber: numbers } };
      }
      default:
        return { case: 'errorResponse', value: { errorCode: Code.InvalidArgument, errorMessage: 'the request asks nothing (no message_request set)' } };
    }
  };
}

/**
 * The reflection services (v1 and v1alpha) for `served`: every service a
 * client can call, reflection itself included, so that listing shows them all.
 */
export function createReflectionServices(served: readonly DescService[]): RegisteredService[] {
  const index = indexOf([...served, ...REFLECTION_SERVICES]);
  const impl = {
    async *serverReflectionInfo(requests: AsyncIterable<ServerReflectionRequest>) {
      const answer = answerer(index);
      for await (const req of requests) {
        // Both versions: same field names, so the v1 shape reads and answers either.
        yield { validHost: req.host, originalRequest: req, messageResponse: answer(req.messageRequest) };
      }
    },
  };
  return REFLECTION_SERVICES.map((desc) => ({ desc, impl }));
}
