// REST shape of an error: google.rpc.Status as JSON, with the HTTP status that
// grpc-gateway uses for each gRPC code.
import { Code, ConnectError } from '@connectrpc/connect';
import { create, toJson, type DescMessage, type JsonObject } from '@bufbuild/protobuf';

const HTTP_STATUS_BY_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

export function httpStatusOf(code: Code): number {
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

export interface StatusJson {
  code: number;
  message: string;
  details: JsonObject[];
}

/** google.rpc.Status JSON: details as Any with "@type", fields in lowerCamelCase. */
export function statusJsonOf(err: ConnectError): StatusJson {
  const details: JsonObject[] = [];
  for (const d of err.details) {
    if ('desc' in d) {
      const desc = d.desc as DescMessage;
      const msg = create(desc, d.value as never);
      details.push({ '@type': `type.googleapis.com/${desc.typeName}`, ...(toJson(desc, msg) as JsonObject) });
    }
  }
  return { code: err.code, message: err.rawMessage, details };
}
