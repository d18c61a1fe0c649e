// Rewrites the README's Configuration table from src/server/config-variables.ts
// (test/server/config-variables.test.ts fails until it agrees):
//   npx tsx scripts/readme-config-table.ts
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configTableMarkdown } from '../src/server/config-variables.js';

const readmePath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const start = readme.indexOf('| variable | default | meaning |');
if (start < 0) throw new Error('README.md has no Configuration table');
const end = readme.indexOf('\n\n', start);
fs.writeFileSync(readmePath, readme.slice(0, start) + configTableMarkdown() + readme.slice(end));
