// A call whose deadline has already passed never runs. connect turns
// `grpc-timeout` / `connect-timeout-ms` into an abort signal and a remaining
// time, but calls the implementation anyway: a zero deadline (`grpc-timeout: 0n`,
// `connect-timeout-ms: 0`) ran the write and committed it, while the client had
// given up. Each implementation is wrapped so that, after every interceptor
// (authentication and rate limits included) and right before the handler
// starts, an expired deadline answers DEADLINE_EXCEEDED and nothing runs.
// Sub-millisecond deadlines ("1n", "999u") count as expired: connect's remaining
// time is whole milliseconds, and no write finishes in less.
//
// Every protocol and both gRPC paths use these wrapped implementations (app.ts).
// A deadline that passes while the handler runs is not checked again before
// its write (that would need the signal in the store's commands); the client
// then sees DEADLINE_EXCEEDED from its own timer while the write may commit —
// as with any gRPC server.
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { RegisteredService } from './rest.js';

type Method = (request: unknown, context: HandlerContext) => unknown;

function refuseIfExpired(context: HandlerContext): void {
  const left = context.timeoutMs();
  if (left !== undefined && left <= 0) throw new KeyholdError('DEADLINE_EXCEEDED');
  if (context.signal.aborted) {
    const reason = ConnectError.from(context.signal.reason, Code.Canceled);
    if (reason.code === Code.DeadlineExceeded) throw new KeyholdError('DEADLINE_EXCEEDED');
    throw reason; // the client went away
  }
}

export function withDeadlines(service: RegisteredService): RegisteredService {
  const original = service.impl as Record<string, Method | undefined>;
  const impl: Record<string, Method> = {};
  for (const method of service.desc.methods) {
    const fn = original[method.localName];
    if (typeof fn !== 'function') continue; // connect answers UNIMPLEMENTED
    impl[method.localName] = (request, context) => {
      refuseIfExpired(context);
      return fn.call(original, request, context);
    };
  }
  return { desc: service.desc, impl };
}
