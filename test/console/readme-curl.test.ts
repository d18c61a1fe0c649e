// The curl examples of README.md and docs/*.md, run for real: every ```sh block that calls curl is
// executed by bash against a started Keyhold (its port and admin token file
// substituted), each curl must succeed (HTTP 2xx, JSON answer), and when a
// ```json block follows, the last answer must match it: every key shown there
// exists with the same value, except strings ending in "…", which stand for
// values that change on every call (ids, secrets) and only need to be there.
// So the documentation cannot drift from the server.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const run = promisify(execFile);

interface Example {
  /** 1-based line of the ```sh fence in its page. */
  line: number;
  script: string;
  expected?: unknown;
}

/** The ```sh blocks that call curl, each with the ```json block right after it, if any. */
export function readmeExamples(markdown: string): Example[] {
  const fences = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
    lang: m[1],
    body: m[2]!,
    line: markdown.slice(0, m.index).split('\n').length,
  }));
  const examples: Example[] = [];
  fences.forEach((f, i) => {
    if (f.lang !== 'sh' || !/(^|[\s$(|])curl\s/m.test(f.body)) return;
    const next = fences[i + 1];
    examples.push({ line: f.line, script: f.body, expected: next?.lang === 'json' ? JSON.parse(next.body) : undefined });
  });
  return examples;
}

/** The JSON values curl printed one after another (no separator between them). */
export function jsonValues(output: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < output.length; i++) {
    const c = output[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) values.push(JSON.parse(output.slice(start, i + 1)));
    } else if (depth === 0 && c.trim()) {
      throw new Error(`not JSON at offset ${i}: ${output.slice(i, i + 80)}`);
    }
  }
  if (depth !== 0) throw new Error(`unterminated JSON in: ${output.slice(start, start + 200)}`);
  return values;
}

/** Where `actual` departs from the abridged `expected`; empty when it matches. */
export function differences(expected: unknown, actual: unknown, at = '$'): string[] {
  if (typeof expected === 'string' && expected.endsWith('\u2026')) {
    return typeof actual === 'string' && actual.length > 0 ? [] : [`${at}: expected a non-empty string, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${at}: expected ${expected.length} entries, got ${actual.length}`];
    return expected.flatMap((e, i) => differences(e, actual[i], `${at}[${i}]`));
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => (k in actual ? differences(v, (actual as Record<string, unknown>)[k], `${at}.${k}`) : [`${at}.${k}: missing`]));
  }
  return Object.is(expected, actual) ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** The front door and the manual: every page whose shell blocks a reader may paste. */
const PAGES = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const examples = PAGES.flatMap((page) => readmeExamples(readFileSync(path.join(repoRoot, page), 'utf8')).map((e) => ({ ...e, page })));

describe('README curl examples', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold();
  });
  afterAll(async () => {
    await kh?.close();
  });

  it('are found, and the comparison catches drift', () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.some((e) => e.expected !== undefined)).toBe(true);
    // The checker itself can fail: a changed value, a missing key, a different count.
    expect(differences({ a: 'x\u2026', b: true }, { a: 'xyz', b: true, c: 1 })).toEqual([]);
    expect(differences({ a: 'x\u2026' }, { a: '' })).toHaveLength(1);
    expect(differences({ a: 'same' }, { a: 'other' })).toHaveLength(1);
    expect(differences({ b: true }, { b: false })).toHaveLength(1);
    expect(differences({ k: 1 }, {})).toEqual(['$.k: missing']);
    expect(differences([{ k: 'v' }], [{ k: 'v' }, { k: 'w' }])).toHaveLength(1);
    expect(jsonValues('{"a":"}"}[1]\n{"b":2}')).toEqual([{ a: '}' }, [1], { b: 2 }]);
  });

  it.each(examples.map((e) => [`${e.page} line ${e.line}`, e] as const))('the block at %s runs and answers as documented', async (_where, example) => {
    const port = String(kh.port);
    const script = example.script
      .replace(/\b(127\.0\.0\.1|localhost):8080\b/g, `$1:${port}`)
      .replaceAll('.keyhold/admin.pat', kh.config.adminPatFile);
    // Every curl must get a 2xx (its body is printed on failure, too).
    const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body --show-error "$@"; }\n';
    const { stdout, stderr } = await run('bash', ['-c', prelude + script], {
      cwd: kh.dataDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TOKEN: kh.adminToken, HOME: kh.dataDir },
      timeout: 20_000,
    }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${example.page} line ${example.line} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    });
    const answers = jsonValues(stdout);
    expect(answers.length, stderr).toBeGreaterThan(0);
    if (example.expected !== undefined) {
      expect(differences(example.expected, answers.at(-1))).toEqual([]);
    }
  });
});
