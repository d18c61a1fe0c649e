// The shell examples of README.md and docs/**/*.md, run for real: every ```sh and
// ```console block is executed by bash against a started Keyhold (its port
// substituted, ./.keyhold its data directory), in the page's order, each block
// with the shell variables the page's earlier blocks set (as a reader pasting
// them into one terminal has). Each curl must succeed (HTTP 2xx). When a
// ```json block follows, the last JSON value printed must match it: every key
// shown there exists with the same value, except strings ending in "…", which
// stand for values that change on every call (ids, secrets) and only need to be
// there. When a ```text output block follows, each of its lines must appear in
// what the block printed, in order ("…" in a line matches anything). A block
// with neither that calls curl must print JSON. So the documentation cannot
// drift from the server; what cannot run here is fenced ```text.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const run = promisify(execFile);

interface Example {
  /** 1-based line of the ```sh fence in its page. */
  line: number;
  script: string;
  /** The ```json block right after it: the last JSON value printed. */
  expected?: unknown;
  /** The ```text output block right after it: lines printed, in order. */
  output?: string[];
}

const SHELL = new Set(['sh', 'console']);

/** The ```sh and ```console blocks, each with the ```json or ```text output block right after it, if any. */
export function readmeExamples(markdown: string): Example[] {
  const fences = [...markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
    info: m[1]!.trim(),
    lang: m[1]!.trim().split(/\s+/)[0],
    body: m[2]!,
    line: markdown.slice(0, m.index).split('\n').length,
  }));
  const examples: Example[] = [];
  fences.forEach((f, i) => {
    if (!SHELL.has(f.lang!)) return;
    const next = fences[i + 1];
    examples.push({
      line: f.line,
      script: f.body,
      expected: next?.lang === 'json' ? JSON.parse(next.body) : undefined,
      output: next?.info === 'text output' ? next.body.split('\n').filter((l) => l.trim() !== '') : undefined,
    });
  });
  return examples;
}

/** The lines of `expected` missing from `printed`, in order; "…" in a line matches anything. */
export function missingLines(expected: readonly string[], printed: string): string[] {
  const lines = printed.split(/\r?\n/);
  let at = 0;
  const missing: string[] = [];
  for (const want of expected) {
    const pattern = new RegExp(`^${want.split('\u2026').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const found = lines.findIndex((l, i) => i >= at && pattern.test(l));
    if (found < 0) missing.push(want);
    else at = found + 1;
  }
  return missing;
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

/** The front door and the manual (docs/ and its folders): every page whose shell blocks a reader may paste. */
const PAGES = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(path.sep).join('/')}`)
    .sort(),
];
const examples = PAGES.flatMap((page) => readmeExamples(readFileSync(path.join(repoRoot, page), 'utf8')).map((e) => ({ ...e, page })));

// Runs before and after each block: the page's variables so far are read in, and
// on exit those the shell did not start with are written back (declare -p; the
// arrays bash sets inside the trap's function are not the page's).
const prelude = `set -euo pipefail
curl() { command curl --fail-with-body --show-error "$@"; }
__start=" FUNCNAME BASH_LINENO BASH_SOURCE $(compgen -v | tr '\\n' ' ') "
if [ -f "$PAGE_STATE" ]; then source "$PAGE_STATE"; fi
__save() { for __v in $(compgen -v); do case "$__start" in *" $__v "*) ;; *) [[ $__v == __* ]] || declare -p "$__v";; esac; done > "$PAGE_STATE"; }
trap __save EXIT
`;

describe('README curl examples', () => {
  let kh: TestKeyhold;
  /** The reader's checkout: ./.keyhold is the server's data directory. */
  let workDir: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    workDir = mkdtempSync(path.join(os.tmpdir(), 'keyhold-readme-'));
    symlinkSync(kh.dataDir, path.join(workDir, '.keyhold'));
  });
  afterAll(async () => {
    await kh?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
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
    expect(missingLines(['a…', 'c'], 'x\nabc\nc\n')).toEqual([]);
    expect(missingLines(['c', 'a…'], 'abc\nc\n')).toEqual(['a…']);
    expect(missingLines(['a.c'], 'abc\n')).toEqual(['a.c']);
    expect(missingLines(['x: 1'], 'HTTP/1.1 200 OK\r\nx: 1\r\n')).toEqual([]);
    // Every page that has shell blocks is found, those in docs/ folders too.
    expect(new Set(examples.map((e) => e.page))).toContain('README.md');
    expect(examples.some((e) => e.page.startsWith('docs/integrations/'))).toBe(true);
  });

  it.each(examples.map((e) => [`${e.page} line ${e.line}`, e] as const))('the block at %s runs and answers as documented', async (_where, example) => {
    const port = String(kh.port);
    const script = example.script.replace(/\b(127\.0\.0\.1|localhost):8080\b/g, `$1:${port}`);
    // Every curl must get a 2xx (its body is printed on failure, too).
    const { stdout, stderr } = await run('bash', ['-c', prelude + script], {
      cwd: workDir,
      env: {
        // The checkout's tools (buf) as in `npx`, whichever way the test was started.
        PATH: `${path.join(repoRoot, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: workDir,
        PAGE_STATE: path.join(workDir, `${example.page.replaceAll('/', '_')}.state`),
      },
      timeout: 20_000,
    }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${example.page} line ${example.line} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    });
    if (example.output !== undefined) {
      expect(missingLines(example.output, stdout), stdout).toEqual([]);
    } else if (example.expected !== undefined || /(^|[\s$(|])curl\s/m.test(example.script)) {
      const answers = jsonValues(stdout);
      expect(answers.length, stderr).toBeGreaterThan(0);
      if (example.expected !== undefined) expect(differences(example.expected, answers.at(-1))).toEqual([]);
    }
  });
});
