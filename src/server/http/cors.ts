// CORS for browser clients (gRPC-Web, Connect, REST) from KEYHOLD_CORS_ORIGINS.
// Preflights are answered here; the protocol headers gRPC-Web and Connect need
// are allowed and exposed.
import { cors as connectCors } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';

// X-Request-Id both ways: a browser client may name its request, and read the id to report (requests.ts).
// DPoP: a browser client's proof for a token bound to its key (domain/oidc/dpop-proof.ts).
const ALLOW_HEADERS = [...connectCors.allowedHeaders, 'Authorization', 'DPoP', 'Accept-Language', 'X-Service-Orgid', 'X-Zitadel-Orgid', 'X-Request-Id'].join(', ');
const EXPOSE_HEADERS = [...connectCors.exposedHeaders, 'X-Request-Id'].join(', ');
const ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].join(', ');

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) return;
    reply.header('access-control-allow-origin', any ? '*' : origin);
    reply.header('vary', 'Origin');
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      reply.header('access-control-allow-methods', ALLOW_METHODS);
      reply.header('access-control-allow-headers', ALLOW_HEADERS);
      reply.header('access-control-max-age', '7200');
      return reply.code(204).send();
    }
  });
}
