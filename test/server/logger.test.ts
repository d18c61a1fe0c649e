// The logger's redaction: what a failed start logs about a DATABASE_URL that no
// URL parser takes (its password holds an unencoded `#`) names the error, never the URL.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/server/logger.js';

describe('logger redaction', () => {
  it("a URL error's input (a DATABASE_URL with its password) is not logged", () => {
    const lines: string[] = [];
    const log = pino(loggerOptions({ logLevel: 'info' }), { write: (line: string) => void lines.push(line) });
    let err: unknown;
    try {
      new URL('postgres://keyhold:SE#CRET@127.0.0.1:x/db');
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('ERR_INVALID_URL');
    log.fatal({ err }, 'keyhold could not start');
    expect(lines.join('\n')).toContain('ERR_INVALID_URL');
    expect(lines.join('\n')).not.toContain('SE#CRET');
  });
});
