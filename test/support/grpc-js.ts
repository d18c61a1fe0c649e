// An independent gRPC stack: @grpc/grpc-js with a dynamic definition loaded
// from proto/ at run time (no generated code from this repo).
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { createRegistry, fromBinary } from '@bufbuild/protobuf';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema } from '../../gen/google/rpc/error_details_pb.js';
import { repoRoot } from './keyhold.js';

const definition = protoLoader.loadSync(
  ['keyhold/management/v1/management.proto', 'keyhold/user/v2/user.proto', 'keyhold/org/v2/org.proto', 'keyhold/auth/v1/auth.proto'],
  {
    includeDirs: [path.join(repoRoot, 'proto'), path.join(repoRoot, 'node_modules/google-proto-files')],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  },
);
const pkg = grpc.loadPackageDefinition(definition) as any;

export const grpcJsServices = {
  management: pkg.keyhold.management.v1.ManagementService,
  user: pkg.keyhold.user.v2.UserService,
  org: pkg.keyhold.org.v2.OrganizationService,
  auth: pkg.keyhold.auth.v1.AuthService,
};

export function grpcJsClient(service: keyof typeof grpcJsServices, port: number): any {
  return new grpcJsServices[service](`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

export function grpcJsMetadata(token: string, extra: Record<string, string> = {}): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  for (const [k, v] of Object.entries(extra)) md.set(k, v);
  return md;
}

/** Promisified unary call; rejects with the grpc-js ServiceError. */
export function grpcJsCall<T = any>(client: any, method: string, request: unknown, md: grpc.Metadata): Promise<T> {
  return new Promise((resolve, reject) => {
    client[method](request, md, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res)));
  });
}

const registry = createRegistry(ErrorInfoSchema, BadRequestSchema, LocalizedMessageSchema);

/** The google.rpc.Status details carried in grpc-status-details-bin, unpacked. */
export function grpcJsStatusDetails(err: grpc.ServiceError) {
  const bin = err.metadata.get('grpc-status-details-bin')[0];
  if (!bin) return { errorInfo: undefined, badRequest: undefined, status: undefined };
  const status = fromBinary(StatusSchema, typeof bin === 'string' ? Buffer.from(bin, 'base64') : bin);
  const unpacked = status.details.map((d) => anyUnpack(d, registry));
  return {
    status,
    errorInfo: unpacked.find((m) => m?.$typeName === 'google.rpc.ErrorInfo') as any,
    badRequest: unpacked.find((m) => m?.$typeName === 'google.rpc.BadRequest') as any,
  };
}
