// A grpc.health.v1 client from @grpc/grpc-js, the stack Kubernetes-style probes
// and grpc-js load balancing use, with the health proto loaded at run time from
// proto/ (no generated code from this repo).
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { repoRoot } from './keyhold.js';

const definition = protoLoader.loadSync('grpc/health/v1/health.proto', {
  includeDirs: [path.join(repoRoot, 'proto')],
  enums: String,
  defaults: true,
});
const Health = (grpc.loadPackageDefinition(definition) as any).grpc.health.v1.Health;

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthClient {
  /** Check with a deadline; rejects with the grpc-js ServiceError. */
  check(service?: string, deadlineMs?: number): Promise<ServingStatus>;
  /** Starts a Watch; statuses arrive in `seen`, `ended` settles with the call's end (status or error). */
  watch(service?: string): { seen: ServingStatus[]; ended: Promise<grpc.StatusObject | grpc.ServiceError>; cancel(): void };
  close(): void;
}

/** `address` is host:port; `credentials` default to plaintext HTTP/2. */
export function healthClient(address: string, credentials = grpc.credentials.createInsecure(), options: grpc.ChannelOptions = {}): HealthClient {
  const client = new Health(address, credentials, options);
  return {
    check: (service = '', deadlineMs = 10_000) =>
      new Promise((resolve, reject) =>
        client.Check({ service }, { deadline: Date.now() + deadlineMs }, (err: grpc.ServiceError | null, res: { status: ServingStatus }) =>
          err ? reject(err) : resolve(res.status),
        ),
      ),
    watch(service = '') {
      const call = client.Watch({ service });
      const seen: ServingStatus[] = [];
      call.on('data', (res: { status: ServingStatus }) => seen.push(res.status));
      const ended = new Promise<grpc.StatusObject | grpc.ServiceError>((resolve) => {
        call.on('status', resolve);
        call.on('error', resolve);
      });
      return { seen, ended, cancel: () => call.cancel() };
    },
    close: () => client.close(),
  };
}

/** Resolves once `predicate` holds, polling every 50 ms; rejects after `timeoutMs` with `what`. */
export async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
