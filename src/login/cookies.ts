// The login's own cookies (the known browser, the external sign-in's binding)
// are written one way: HttpOnly, SameSite=Lax (an upstream's or an app's
// redirect back is a top-level GET), Secure with Path / under an https issuer
// (the `__Host-` names need both), the login's path otherwise. They are added
// beside whatever cookies the reply already sets, such as the interaction's.
import type { ServerResponse } from 'node:http';

export interface LoginCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
  secure: boolean;
  /** The path under a plain-http issuer. */
  insecurePath: string;
}

export function appendLoginCookie(raw: ServerResponse, c: LoginCookie): void {
  const cookie = `${c.name}=${c.value}; Path=${c.secure ? '/' : c.insecurePath}; Max-Age=${c.maxAgeSeconds}; HttpOnly; SameSite=Lax${c.secure ? '; Secure' : ''}`;
  const existing = raw.getHeader('set-cookie');
  const before = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  raw.setHeader('set-cookie', [...before, cookie]);
}
