// A minimal ustar (POSIX tar) writer and reader for backups (server/backup.ts):
// regular files and directories only, streamed, so a backup's size never has
// to fit in memory and `tar -tzf` can list one. Nothing else is accepted when
// reading: no links, devices or extended headers, and every name is checked
// by the caller before anything is written (a backup is a file from outside).
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';

const BLOCK = 512;
const ZEROS = Buffer.alloc(BLOCK);

export interface TarEntry {
  /** Relative, with `/` separators; directories without a trailing slash. */
  name: string;
  type: 'file' | 'directory';
  /** Bytes of the body (0 for a directory). */
  size: number;
  /** Permission bits as stored (the reader's caller chooses the modes it writes). */
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** The body, exactly `size` bytes (files only). */
  body?: AsyncIterable<Buffer> | Iterable<Buffer>;
}

export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL, as GNU and BSD tar write them.
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** The ustar split of a long name: prefix (≤155 bytes) / name (≤100 bytes), at a slash. */
function splitName(name: string): { prefix: string; name: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '') return { prefix, name: rest };
  }
  throw new TarFormatError(`a name too long for a tar header: ${name.slice(0, 120)}`);
}

export function tarHeader(entry: Omit<TarEntry, 'body'>): Buffer {
  const header = Buffer.alloc(BLOCK);
  const { prefix, name } = splitName(entry.type === 'directory' ? `${entry.name}/` : entry.name);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(entry.mode & 0o7777, 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii'); // uid
  header.write(octal(0, 8), 116, 8, 'ascii'); // gid
  header.write(octal(entry.type === 'file' ? entry.size : 0, 12), 124, 12, 'ascii');
  header.write(octal(Math.max(0, Math.floor(entry.mtime)), 12), 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii'); // the checksum counts its own field as spaces
  header.write(entry.type === 'file' ? '0' : '5', 156, 1, 'ascii');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return header;
}

/** The archive's bytes: each entry's header, body and padding, then the two zero blocks that end it. */
export function tarStream(entries: AsyncIterable<TarEntry>): Readable {
  return Readable.from(
    (async function* () {
      for await (const entry of entries) {
        yield tarHeader(entry);
        if (entry.type !== 'file') continue;
        let written = 0;
        for await (const chunk of entry.body ?? []) {
          written += chunk.length;
          if (written > entry.size) break;
          yield chunk;
        }
        // A file that changed while it was read would make a corrupt archive: refuse instead.
        if (written !== entry.size) throw new TarFormatError(`${entry.name} changed while it was archived (${entry.size} bytes expected, ${written} read)`);
        if (entry.size % BLOCK) yield ZEROS.subarray(0, BLOCK - (entry.size % BLOCK));
      }
      yield ZEROS;
      yield ZEROS;
    })(),
    { objectMode: false },
  );
}

/** Exact reads from a stream of chunks. */
class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (at least one), or undefined at the end of the stream. */
  async some(max: number): Promise<Buffer | undefined> {
    if (this.buffered === 0) {
      const next = await this.source.next();
      if (next.done) return undefined;
      this.chunks.push(Buffer.from(next.value));
      this.buffered += next.value.length;
      if (this.buffered === 0) return this.some(max);
    }
    const first = this.chunks[0]!;
    const taken = first.subarray(0, max);
    if (taken.length === first.length) this.chunks.shift();
    else this.chunks[0] = first.subarray(taken.length);
    this.buffered -= taken.length;
    return taken;
  }

  /** Exactly `n` bytes, or a TarFormatError naming `what` when the stream ends first. */
  async exactly(n: number, what: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const part = await this.some(n - have);
      if (!part) throw new TarFormatError(`the archive ends in the middle of ${what}: it is truncated`);
      parts.push(part);
      have += part.length;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  }
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function octalField(header: Buffer, start: number, length: number, what: string): number {
  const text = field(header, start, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`a tar header with an unreadable ${what}`);
  return parseInt(text, 8);
}

/**
 * The entries of an archive, in order. Each file's body must be consumed (or
 * skipped with `for await` to its end) before asking for the next entry.
 * Throws TarFormatError on anything but ustar files and directories, on a bad
 * checksum and on a truncated archive.
 */
export async function* readTar(source: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ByteReader((async function* () {
    yield* source;
  })());
  for (;;) {
    const header = await reader.exactly(BLOCK, 'a header');
    if (header.equals(ZEROS)) return; // the end (the second zero block need not be read)
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
    if (octalField(header, 148, 8, 'checksum') !== sum) throw new TarFormatError('a tar header with a wrong checksum: the archive is damaged');
    if (field(header, 257, 6) !== 'ustar') throw new TarFormatError('not a ustar archive');
    const flag = String.fromCharCode(header[156]!);
    const type = flag === '0' || flag === '\0' ? 'file' : flag === '5' ? 'directory' : undefined;
    const prefix = field(header, 345, 155);
    const rawName = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    if (!type) throw new TarFormatError(`an entry of a kind a backup never holds (type "${flag}"): ${rawName.slice(0, 120)}`);
    const name = rawName.replace(/\/+$/, '');
    const size = type === 'file' ? octalField(header, 124, 12, 'size') : 0;
    const mode = octalField(header, 100, 8, 'mode');
    const mtime = octalField(header, 136, 12, 'time');
    if (type === 'directory') {
      yield { name, type, size, mode, mtime };
      continue;
    }
    let left = size;
    // An iterator without return(): a caller that stops reading leaves the rest to be skipped below.
    const next = async (): Promise<IteratorResult<Buffer>> => {
      if (left === 0) return { done: true, value: undefined };
      const part = await reader.some(left);
      if (!part) throw new TarFormatError(`the archive ends in the middle of ${name}: it is truncated`);
      left -= part.length;
      return { done: false, value: part };
    };
    yield { name, type, size, mode, mtime, body: { [Symbol.asyncIterator]: () => ({ next }) } };
    // Whatever the caller did not read of the body, then the padding.
    while (!(await next()).done);
    if (size % BLOCK) await reader.exactly(BLOCK - (size % BLOCK), `the padding of ${name}`);
  }
}

/**
 * The entries of the tree under `dir`, named `<prefix>/<path>`, parents before
 * their contents, in name order. Anything but files and directories (a link)
 * is refused rather than left out: a backup that silently lacks a file is worse
 * than none.
 */
export async function* directoryEntries(dir: string, prefix: string): AsyncGenerator<TarEntry> {
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const stat = await lstat(path);
    const entryName = `${prefix}/${name}`;
    const mtime = Math.floor(stat.mtimeMs / 1000);
    if (stat.isDirectory()) {
      yield { name: entryName, type: 'directory', size: 0, mode: stat.mode & 0o7777, mtime };
      yield* directoryEntries(path, entryName);
    } else if (stat.isFile()) {
      yield { name: entryName, type: 'file', size: stat.size, mode: stat.mode & 0o7777, mtime, body: fileBody(path) };
    } else {
      throw new TarFormatError(`${path} is neither a file nor a directory: not archived`);
    }
  }
}

/** A file's bytes, opened only when they are read. */
async function* fileBody(path: string): AsyncGenerator<Buffer> {
  for await (const chunk of createReadStream(path)) yield chunk as Buffer;
}
