// THE place tests read Keyhold's errors: the details of a connect-es
// ConnectError, of a REST google.rpc.Status body, and the shape checks the
// reliability tests assert on every answer.
import { Code, ConnectError } from '@connectrpc/connect';
import { expect } from 'vitest';
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

/** "OK" when the call succeeds, else its ErrorInfo reason (or the code, when there is none). */
export async function reasonOrOk(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (e) {
    const err = ConnectError.from(e);
    return err.findDetails(ErrorInfoSchema)[0]?.reason ?? `${Code[err.code]} without a reason`;
  }
}

/** The ErrorInfo reason of a REST Status body. */
export function restReason(body: any): string | undefined {
  return body?.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
}

export function restFields(body: any): string[] {
  return body?.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations?.map((v: any) => v.field) ?? [];
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** The ErrorInfo of a REST error body, after asserting the google.rpc.Status shape. */
export function assertRestStatus(status: number, body: unknown, what: string): { reason: string; code: number } {
  const b = body as { code?: unknown; message?: unknown; details?: unknown };
  const ctx = `${what}: HTTP ${status} ${typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body)?.slice(0, 300)}`;
  expect(status, ctx).toBeGreaterThanOrEqual(400);
  expect(status, ctx).toBeLessThan(500);
  expect(typeof b, ctx).toBe('object');
  expect(typeof b.code, ctx).toBe('number');
  expect(typeof b.message, ctx).toBe('string');
  expect(Array.isArray(b.details), ctx).toBe(true);
  const info = (b.details as any[]).find((d) => d['@type'] === ERROR_INFO);
  expect(info, ctx).toBeDefined();
  expect(info.domain, ctx).toBe('keyhold');
  expect(info.reason, ctx).toMatch(/^[A-Z][A-Z0-9_]+$/);
  return { reason: info.reason, code: b.code as number };
}

/** The reason of a ConnectError, after asserting it is a client-side code with an ErrorInfo. */
export function assertRpcError(thrown: unknown, what: string): { reason: string; code: Code } {
  const err = ConnectError.from(thrown);
  const ctx = `${what}: ${Code[err.code]} ${err.rawMessage.slice(0, 300)}`;
  expect([Code.Internal, Code.Unknown, Code.DataLoss, Code.Unavailable], ctx).not.toContain(err.code);
  const info = err.findDetails(ErrorInfoSchema)[0];
  expect(info, ctx).toBeDefined();
  expect(info.domain, ctx).toBe('keyhold');
  return { reason: info.reason, code: err.code };
}
