// The protocol-level services Keyhold serves beside its API: gRPC health
// (health.ts) and server reflection (reflection.ts). They go through the same
// router, interceptors and gRPC fast path as the API, but not into REST (they
// have no google.api.http rules) nor into the OpenAPI document.
import { Health } from '../../../gen/grpc/health/v1/health_pb.js';
import { createHealthService } from './health.js';
import { createReflectionServices, REFLECTION_SERVICES } from './reflection.js';
import type { RegisteredService } from './rest.js';

export interface OperationalServices {
  services: RegisteredService[];
  /** Shutdown has begun: health turns NOT_SERVING and ends its watches. */
  close(): void;
}

export function operationalServices(api: readonly RegisteredService[], ready: () => Promise<void>): OperationalServices {
  const health = createHealthService({ ready, needDatabase: api.map((s) => s.desc), independent: REFLECTION_SERVICES });
  const reflection = createReflectionServices([...api.map((s) => s.desc), Health]);
  return { services: [health, ...reflection], close: () => health.close() };
}
