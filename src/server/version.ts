// Keyhold's version, read from package.json once, so `keyhold --version` and
// the OpenAPI document say what npm says. The relative path holds from
// src/server/ (run through tsx) and from dist/server/ (the build): both sit two
// levels below the package root.
import { readFileSync } from 'node:fs';

export const KEYHOLD_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
