// Authentication: "authorization: Bearer <personal access token>" on every call
// except the few public methods. Resolves the token to a Caller (user, org,
// memberships) and hands it to the handler through the context values.
import type { Interceptor } from '@connectrpc/connect';
import { callerKey } from '../../commands/caller.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { ResolveToken } from '../../queries/callers.js';

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

export type { ResolveToken } from '../../queries/callers.js';

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

export function authInterceptor(resolve: ResolveToken): Interceptor {
  return (next) => async (req) => {
    if (PUBLIC_METHODS.has(`${req.service.typeName}/${req.method.name}`)) return next(req);
    const match = BEARER.exec(req.header.get('authorization') ?? '');
    const caller = match ? await resolve(match[1]) : undefined;
    if (!caller) throw new KeyholdError('UNAUTHENTICATED');
    req.contextValues.set(callerKey, caller);
    return next(req);
  };
}
