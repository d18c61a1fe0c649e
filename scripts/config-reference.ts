// Writes docs/configuration.md from src/server/config-variables.ts
// (test/server/config-variables.test.ts fails until the committed page agrees):
//   npm run docs:config
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configurationReference } from '../src/server/config-variables.js';

const page = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
fs.writeFileSync(page, configurationReference());
