// Authentication: "authorization: Bearer <token>" (or "DPoP <token>" with a
// `dpop` proof, for a token bound to a key) on every call except the few
// public methods. Resolves the token to a Caller (user, org, memberships) and
// hands it to the handler through the context values.
//
// A DPoP proof names the request it is for (RFC 9449 `htm`, `htu`). Every
// protocol is an HTTP request here: `htm` is its method (POST for gRPC,
// gRPC-Web and Connect, GET for a Connect GET, the route's method for REST) and
// `htu` the issuer followed by the request's path — for gRPC, e.g.
// `<issuer>/keyhold.auth.v1.AuthService/GetMyUser`; the query is never part of it.
import type { Interceptor } from '@connectrpc/connect';
import { callerKey } from '../../../access/caller.js';
import { KeyholdError } from '../../../domain/errors/keyhold-error.js';
import type { ResolveToken } from '../../../queries/callers.js';

/** Methods anyone may call, by "<service typeName>/<method name>". */
export const PUBLIC_METHODS: ReadonlySet<string> = new Set([
  'keyhold.management.v1.ManagementService/Healthz',
  // Probes and tools ask these without credentials (operational-services.ts); they
  // reveal only readiness and the schema, which /readyz and /openapi.json show too.
  'grpc.health.v1.Health/Check',
  'grpc.health.v1.Health/List',
  'grpc.health.v1.Health/Watch',
  'grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  'grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

export type { ResolveToken } from '../../../queries/callers.js';

const CREDENTIALS = /^(Bearer|DPoP)\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/** The request's path: REST hands it as is, Connect and gRPC as a whole URL. */
const pathOf = (url: string) => new URL(url, 'http://path.invalid').pathname;

/** `issuer`: the OpenID Provider's issuer (config KEYHOLD_ISSUER), what a DPoP proof's `htu` starts with. */
export function authInterceptor(resolve: ResolveToken, issuer: () => string): Interceptor {
  return (next) => async (req) => {
    if (PUBLIC_METHODS.has(`${req.service.typeName}/${req.method.name}`)) return next(req);
    const match = CREDENTIALS.exec(req.header.get('authorization') ?? '');
    const caller = match
      ? await resolve({
          scheme: match[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer',
          token: match[2]!,
          proof: req.header.get('dpop') ?? undefined,
          method: req.requestMethod,
          url: issuer() + pathOf(req.url),
        })
      : undefined;
    if (!caller) throw new KeyholdError('UNAUTHENTICATED');
    req.contextValues.set(callerKey, caller);
    return next(req);
  };
}
