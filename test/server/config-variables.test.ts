// One table of environment variables (src/server/config-variables.ts) for
// `keyhold --help`, `keyhold config` and docs/configuration.md: it names
// exactly the variables loadConfig reads, and the committed page is the one
// generated from it. When this fails after changing a variable: change the
// table, then `npm run docs:config`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.js';
import { CONFIG_VARIABLES, configurationReference, SECRET_FILE_VARIABLES } from '../../src/server/config-variables.js';
import { EFFECTIVE_VALUES } from '../../src/server/config-report.js';
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

  it('is docs/configuration.md, generated (npm run docs:config)', () => {
    const page = fs.readFileSync(path.join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    expect(page).toBe(configurationReference());
    for (const name of CONFIG_VARIABLES.flatMap((v) => v.names)) expect(page).toContain(`\`${name}\``);
  });

  it('gives every secret-bearing variable a _FILE row, and every setting an effective value for keyhold config', () => {
    const secret = CONFIG_VARIABLES.filter((v) => v.secret).flatMap((v) => v.names);
    expect(secret.sort()).toEqual(['DATABASE_URL', 'KEYHOLD_MASTERKEY', 'KEYHOLD_SMTP_PASSWORD']);
    expect([...SECRET_FILE_VARIABLES].sort()).toEqual(secret);
    for (const name of secret) expect(CONFIG_VARIABLES.some((v) => v.names.includes(`${name}_FILE`) && v.fileOf === name), name).toBe(true);
    const settings = CONFIG_VARIABLES.filter((v) => !v.fileOf).flatMap((v) => v.names);
    expect(Object.keys(EFFECTIVE_VALUES).sort()).toEqual(settings.sort());
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
