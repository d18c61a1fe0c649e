// DATABASE_URL → what postgres.js needs. libpq names a Unix-domain socket with a
// `host` query parameter holding a directory (postgresql://user@/db?host=/var/run/postgresql);
// postgres.js's URL parser has no such form (it sends `host` to the server as a
// setting), so the directory is taken out here and passed as the host option.
// A socket skips the TCP stack: on the benchmark machine each write to
// PostgreSQL over loopback TCP cost ~60 µs of the server's CPU.

export interface PostgresTarget {
  /** The URL postgres.js parses (without a socket `host` parameter). */
  url: string;
  /** The socket directory, when the URL names one. */
  host?: string;
}

export function postgresTarget(databaseUrl: string): PostgresTarget {
  const query = databaseUrl.indexOf('?');
  if (query < 0) return { url: databaseUrl };
  const params = new URLSearchParams(databaseUrl.slice(query + 1));
  const host = params.get('host');
  if (!host?.startsWith('/')) return { url: databaseUrl };
  params.delete('host');
  const rest = params.toString();
  // An empty authority host (postgresql://user@/db) is valid for libpq, not for WHATWG URLs.
  const base = databaseUrl.slice(0, query).replace(/^(postgres(?:ql)?:\/\/(?:[^@/]*@)?)(?=[/]|$)/, '$1localhost');
  return { url: rest ? `${base}?${rest}` : base, host };
}
