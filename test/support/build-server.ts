// vitest globalSetup: the tests that run the build (npm-start, cli) need
// dist/server to match the sources. Built here, once before any test file
// starts, when a source is newer than the build — not in each file, where two
// files running at once would swap dist/server under each other.
import { buildServer, isStale } from '../../scripts/build-server.mjs';

export default async function setup(): Promise<void> {
  if (isStale()) await buildServer();
}
