// The tar format of backups (src/store/tar.ts): what it writes, the system's tar
// reads; what it reads back is what was written, long names included; and it
// refuses what a backup never holds — links, damaged headers, truncated
// archives — and a file that changed while it was archived.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTar, tarHeader, tarStream, TarFormatError, type TarEntry } from '../../src/store/tar.js';
import { safeEntryName } from '../../src/server/backup.js';

const dir = mkdtempSync(path.join(tmpdir(), 'keyhold-tar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LONG = `pgdata/${'deep/'.repeat(25)}file`; // over 100 bytes: ustar's prefix field
const file = (name: string, bytes: Buffer): TarEntry => ({ name, type: 'file', size: bytes.length, mode: 0o600, mtime: 1_700_000_000, body: [bytes] });
const ENTRIES: TarEntry[] = [
  { name: 'pgdata', type: 'directory', size: 0, mode: 0o700, mtime: 1_700_000_000 },
  file('pgdata/PG_VERSION', Buffer.from('17\n')),
  file('pgdata/empty', Buffer.alloc(0)),
  file('pgdata/block-and-one', Buffer.alloc(513, 7)),
  file(LONG, Buffer.from('long name')),
];

async function bytesOf(entries: TarEntry[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of tarStream((async function* () { yield* entries; })())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readAll(archive: Buffer): Promise<{ name: string; type: string; body: string }[]> {
  const out: { name: string; type: string; body: string }[] = [];
  for await (const e of readTar([archive])) {
    const parts: Buffer[] = [];
    for await (const p of e.body ?? []) parts.push(p);
    out.push({ name: e.name, type: e.type, body: Buffer.concat(parts).toString('latin1') });
  }
  return out;
}

/** A header of another kind (typeflag), its checksum made right again. */
function withType(header: Buffer, flag: string): Buffer {
  const h = Buffer.from(header);
  h.write(flag, 156, 1, 'ascii');
  h.write('        ', 148, 8, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

describe('backup archives (ustar)', () => {
  it("round trip: the system's tar lists what was written, and reading gives back every name and byte", async () => {
    const archive = await bytesOf(ENTRIES);
    expect(archive.length % 512).toBe(0);
    const file = path.join(dir, 'round.tar');
    writeFileSync(file, archive);
    expect(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['pgdata/', 'pgdata/PG_VERSION', 'pgdata/empty', 'pgdata/block-and-one', LONG]);
    expect(await readAll(archive)).toEqual([
      { name: 'pgdata', type: 'directory', body: '' },
      { name: 'pgdata/PG_VERSION', type: 'file', body: '17\n' },
      { name: 'pgdata/empty', type: 'file', body: '' },
      { name: 'pgdata/block-and-one', type: 'file', body: '\x07'.repeat(513) },
      { name: LONG, type: 'file', body: 'long name' },
    ]);
  });

  it('a reader that skips bodies still gets every entry', async () => {
    const names: string[] = [];
    for await (const e of readTar([await bytesOf(ENTRIES)])) names.push(e.name);
    expect(names).toHaveLength(ENTRIES.length);
  });

  it('refused: a link, a damaged header, a truncated archive, a file that changed while archived', async () => {
    const link = withType(tarHeader({ name: 'pgdata/escape', type: 'file', size: 0, mode: 0o777, mtime: 0 }), '2');
    await expect(readAll(Buffer.concat([link, Buffer.alloc(1024)]))).rejects.toThrow(/an entry of a kind a backup never holds \(type "2"\): pgdata\/escape/);
    const archive = await bytesOf(ENTRIES);
    const damaged = Buffer.from(archive);
    damaged[600] ^= 0xff; // inside the second header
    await expect(readAll(damaged)).rejects.toThrow(/wrong checksum/);
    await expect(readAll(archive.subarray(0, 512 * 6 + 100))).rejects.toThrow(/truncated/);
    await expect(readAll(archive.subarray(0, 512 * 2))).rejects.toThrow(/truncated/);
    const shrunk: TarEntry = { ...file('pgdata/x', Buffer.from('abc')), size: 10 };
    await expect(bytesOf([shrunk])).rejects.toThrow(TarFormatError);
  });

  it('names a restore accepts: relative, no "..", ".", empty part, backslash or absolute path', () => {
    for (const good of ['pgdata', 'pgdata/base/1/112', 'keyhold-backup.json']) expect(safeEntryName(good), good).toBe(true);
    for (const bad of ['', '/etc/passwd', '../x', 'pgdata/../../x', 'pgdata/./x', 'pgdata//x', 'pgdata\\..\\x', 'pgdata/x\0']) expect(safeEntryName(bad), bad).toBe(false);
  });
});
