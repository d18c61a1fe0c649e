// The layers import in one direction (docs/architecture.md): each folder of
// src/ may import only the folders this table names. A new import against the
// arrow fails here, with the file and the import it made.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Which top-level folders of src/ each one may import (its own always). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  access: ['domain'],
  commands: ['access', 'domain'],
  queries: ['access', 'domain'],
  store: ['commands', 'access', 'queries', 'domain'],
  mail: ['domain'],
  login: ['mail', 'commands', 'queries', 'access', 'domain'],
  account: ['login', 'mail', 'commands', 'queries', 'access', 'domain'],
  api: ['mail', 'commands', 'queries', 'access', 'domain'],
  server: ['account', 'login', 'api', 'mail', 'commands', 'queries', 'access', 'store', 'domain'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function layerOf(path: string): string | undefined {
  const rel = relative(SRC, path);
  return rel.startsWith('..') ? undefined : rel.split('/')[0];
}

describe('the layers', () => {
  it('every import runs along the arrows of the table', () => {
    const against: string[] = [];
    for (const file of files(SRC)) {
      const from = layerOf(file);
      if (!from || !(from in MAY_IMPORT)) continue;
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = (m[1] ?? m[2])!;
        const to = layerOf(resolve(dirname(file), spec));
        if (!to || to === from) continue;
        if (!MAY_IMPORT[from]!.includes(to)) against.push(`${relative(SRC, file)} → ${spec}`);
      }
    }
    expect(against).toEqual([]);
  });

  it('the table names every folder of src/', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
    expect(folders.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });
});
