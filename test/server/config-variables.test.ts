// One table of environment variables (src/server/config-variables.ts) for
// `keyhold --help` and the README: it names exactly the variables loadConfig
// reads, and the README's Configuration table is that table rendered. When
// this fails after adding a variable: add it to the table, then paste the
// expected table below (from the failure's diff) into the README.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.js';
import { CONFIG_VARIABLES, configTableMarkdown } from '../../src/server/config-variables.js';
import { helpText } from '../../src/server/cli.js';
import { repoRoot } from '../support/keyhold.js';

/** The names loadConfig looks up in the environment. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  return [...read].sort();
}

describe('the table of environment variables', () => {
  it('names exactly the variables loadConfig reads', () => {
    const documented = CONFIG_VARIABLES.flatMap((v) => v.names).sort();
    expect(documented).toEqual(variablesRead());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("is the README's Configuration table", () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const start = readme.indexOf('| variable | default | meaning |');
    expect(start).toBeGreaterThan(0);
    const end = readme.indexOf('\n\n', start);
    expect(readme.slice(start, end)).toBe(configTableMarkdown());
  });

  it('keyhold --help lists each variable on one line, without Markdown', () => {
    const help = helpText();
    for (const v of CONFIG_VARIABLES) {
      const line = help.split('\n').find((l) => l.trimStart().startsWith(v.names.join(', ')));
      expect(line, v.names.join()).toBeDefined();
      expect(line).not.toContain('`');
    }
  });
});
