// Keyhold's version, read from package.json once, so `keyhold --version` and
// the OpenAPI document say what npm says, and the commit the build was made
// from (dist/server/build-info.json, written by scripts/build-server.mjs), so a
// running release can be traced to its sources. The relative paths hold from
// src/server/ (run through tsx: no build, so the commit is "unknown") and from
// dist/server/ (the build): both sit two levels below the package root.
import { readFileSync } from 'node:fs';

export const KEYHOLD_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function buildCommit(): string {
  try {
    const { commit } = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as { commit?: unknown };
    return typeof commit === 'string' && commit !== '' ? commit : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const KEYHOLD_COMMIT: string = buildCommit();
