// The configuration is fixed at start: nothing rewrites it, not even
// the default WebAuthn origin, which can only name the port once the server
// listens (KEYHOLD_PORT=0). The commands read settings made from it then.
import { rm } from 'node:fs/promises';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/server/config.js';
import { startKeyhold, warnOfStaleConsoleApp, type RunningKeyhold } from '../../src/server/start.js';
import { tempDir } from '../support/databases.js';

let kh: RunningKeyhold | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  await kh?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

it('starts on a frozen configuration; the default WebAuthn origin names the port it listens on', async () => {
  dataDir = await tempDir('keyhold-start-');
  const config: Config = deepFreeze(loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'silent' }));
  kh = await startKeyhold(config, pino({ level: 'silent' }));
  expect(kh.port).toBeGreaterThan(0);
  expect(kh.webauthn.origins).toEqual([`http://localhost:${kh.port}`]);
  expect(Object.isFrozen(kh.webauthn)).toBe(true);
  expect(config.webauthn.origins).toEqual(['http://localhost:0']);
});

it("names the console's URL: the console app's redirect URI; a start whose issuer the app was not registered for warns, naming both", async () => {
  expect(kh).toBeDefined();
  expect(kh!.issuer).toBe(`http://localhost:${kh!.port}`);
  expect(kh!.consoleUrl).toBe(`http://localhost:${kh!.port}/console/`);
  const lines: Array<{ msg: string; registered?: string[] }> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  await warnOfStaleConsoleApp(kh!.readModel, kh!.issuer, kh!.consoleUrl, log);
  expect(lines).toEqual([]);
  // As after KEYHOLD_ISSUER changed: the app keeps the redirect URI of the start that made it.
  await warnOfStaleConsoleApp(kh!.readModel, 'https://login.example.com', 'https://login.example.com/console/', log);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.msg).toBe(
    `the console at https://login.example.com/console/ cannot sign in: its app (client id keyhold-console) is registered for ${kh!.consoleUrl}, not for KEYHOLD_ISSUER's https://login.example.com/console/; add https://login.example.com/console/ to the app's redirect and post-logout URIs, or start with the earlier KEYHOLD_ISSUER`,
  );
  expect(lines[0]!.registered).toEqual([kh!.consoleUrl]);
});
