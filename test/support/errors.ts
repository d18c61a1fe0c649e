// Reads Keyhold's error details off a connect-es ConnectError.
import { ConnectError } from '@connectrpc/connect';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema } from '../../gen/google/rpc/error_details_pb.js';

export async function rpcError(call: Promise<unknown>) {
  try {
    await call;
  } catch (e) {
    const err = ConnectError.from(e);
    return {
      code: err.code,
      message: err.rawMessage,
      reason: err.findDetails(ErrorInfoSchema)[0]?.reason,
      errorInfo: err.findDetails(ErrorInfoSchema)[0],
      fields: err.findDetails(BadRequestSchema)[0]?.fieldViolations.map((v) => v.field) ?? [],
      violations: err.findDetails(BadRequestSchema)[0]?.fieldViolations ?? [],
      localized: err.findDetails(LocalizedMessageSchema)[0],
    };
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** The ErrorInfo reason of a REST Status body. */
export function restReason(body: any): string | undefined {
  return body?.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
}

export function restFields(body: any): string[] {
  return body?.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations?.map((v: any) => v.field) ?? [];
}
