// A minimal HTTP/2 client over a plain TCP socket, for what node:http2 refuses
// to send: a header list with a repeated singleton header (two `authorization`
// fields), sent right after the connection preface without waiting for the
// server's SETTINGS (as curl does). Requests are encoded with HPACK literals
// (no Huffman, no table); of the answer it reads :status (static table or a
// digits-only literal, Huffman or not), the DATA bytes and a RST_STREAM code.
import net from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const TYPE = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7 } as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const STATIC_STATUS: Record<number, number> = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 };
/** HPACK Huffman codes of the ten digits (RFC 7541 Appendix B): code, length in bits. */
const HUFFMAN_DIGITS: [number, number][] = [
  [0x0, 5], [0x1, 5], [0x2, 5], [0x19, 6], [0x1a, 6], [0x1b, 6], [0x1c, 6], [0x1d, 6], [0x1e, 6], [0x1f, 6],
];

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

function hpackInt(value: number, prefixBits: number, firstByte: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [firstByte | value];
  const out = [firstByte | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

function literal(name: string, value: string): Buffer {
  const n = Buffer.from(name, 'latin1');
  const v = Buffer.from(value, 'latin1');
  // 0x00: literal header field without indexing, new name.
  return Buffer.concat([Buffer.from([0x00]), Buffer.from(hpackInt(n.length, 7, 0)), n, Buffer.from(hpackInt(v.length, 7, 0)), v]);
}

function decodeHuffmanDigits(bytes: Buffer): string {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  let at = 0;
  outer: while (at < bits.length) {
    for (let d = 0; d < 10; d++) {
      const [code, length] = HUFFMAN_DIGITS[d];
      if (at + length <= bits.length && parseInt(bits.slice(at, at + length), 2) === code) {
        out += String(d);
        at += length;
        continue outer;
      }
    }
    break; // padding (all ones)
  }
  return out;
}

/** :status from the start of a response header block (nghttp2 puts it first). */
function statusOf(block: Buffer): number | undefined {
  const first = block[0];
  if (first & 0x80) return STATIC_STATUS[first & 0x7f];
  // Literal with an indexed name (:status is 8..14): 0x40 (incremental), 0x00 or 0x10 forms.
  const index = first & 0x40 ? first & 0x3f : first & 0x0f;
  if (index < 8 || index > 14) return undefined;
  const huffman = (block[1] & 0x80) !== 0;
  const length = block[1] & 0x7f;
  const raw = block.subarray(2, 2 + length);
  return Number(huffman ? decodeHuffmanDigits(raw) : raw.toString('latin1'));
}

export interface RawH2Answer {
  status?: number;
  body: Buffer;
  /** RST_STREAM error code for the request's stream, if the server reset it. */
  rstCode?: number;
}

/**
 * One request on stream 1 of a fresh connection. `headers` are sent in order,
 * repeats included (pseudo-headers first, as HTTP/2 requires).
 */
export function rawH2Request(port: number, headers: [string, string][], body?: Buffer, timeoutMs = 5000): Promise<RawH2Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let buffered = Buffer.alloc(0);
    const answer: RawH2Answer = { body: Buffer.alloc(0) };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no complete answer in time'));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => finish());
    socket.on('connect', () => {
      const block = Buffer.concat(headers.map(([n, v]) => literal(n, v)));
      const frames = [PREFACE, frame(TYPE.SETTINGS, 0, 0, Buffer.alloc(0))];
      // One HEADERS frame suffices below the default 16 KiB frame size; bigger lists go in CONTINUATION frames.
      const MAX = 16_384;
      const chunks = [];
      for (let at = 0; at < block.length || at === 0; at += MAX) chunks.push(block.subarray(at, at + MAX));
      chunks.forEach((chunk, i) => {
        const last = i === chunks.length - 1;
        const flags = (last ? END_HEADERS : 0) | (i === 0 && body === undefined ? END_STREAM : 0);
        frames.push(frame(i === 0 ? TYPE.HEADERS : 9 /* CONTINUATION */, flags, 1, chunk));
      });
      if (body !== undefined) frames.push(frame(TYPE.DATA, END_STREAM, 1, body));
      socket.write(Buffer.concat(frames));
    });
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        const type = buffered[3];
        const flags = buffered[4];
        const stream = buffered.readUInt32BE(5) & 0x7fffffff;
        const payload = buffered.subarray(9, 9 + length);
        buffered = buffered.subarray(9 + length);
        if (type === TYPE.SETTINGS && !(flags & 0x1)) socket.write(frame(TYPE.SETTINGS, 0x1, 0, Buffer.alloc(0)));
        if (stream !== 1) {
          if (type === TYPE.GOAWAY) return finish();
          continue;
        }
        if (type === TYPE.HEADERS && answer.status === undefined) answer.status = statusOf(payload);
        if (type === TYPE.DATA) answer.body = Buffer.concat([answer.body, payload]);
        if (type === TYPE.RST_STREAM) {
          answer.rstCode = payload.readUInt32BE(0);
          return finish();
        }
        if (flags & END_STREAM) return finish();
      }
    });
  });
}
