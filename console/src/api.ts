// The console's only way to the API: generated Connect clients over the
// gRPC-Web transport (binary, application/grpc-web+proto), same origin.
//
// The personal access token lives in sessionStorage (this tab only; gone when
// the tab closes) and travels only in the `authorization` header, added by an
// interceptor. It is never put in a URL, never logged. The browser's languages
// become `accept-language`, so server messages arrive in the user's language.
// The organization chosen on #/orgs (sessionStorage too) travels as
// `x-service-orgid` on every call; none chosen: the caller's own org.
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-web';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema } from '../../gen/google/rpc/error_details_pb.js';
import { AdminService } from '../../gen/keyhold/admin/v1/admin_pb.js';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { L, language } from './i18n.js';

const TOKEN_KEY = 'keyhold.console.token';
const ORG_KEY = 'keyhold.console.org';

export interface OrgChoice {
  id: string;
  name: string;
}

/** The organization the console acts in (x-service-orgid); undefined: the caller's own. */
export const orgContext = {
  get current(): OrgChoice | undefined {
    try {
      const v = JSON.parse(sessionStorage.getItem(ORG_KEY) ?? 'null');
      return typeof v?.id === 'string' && typeof v?.name === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  },
  set(org: OrgChoice | undefined): void {
    if (org) sessionStorage.setItem(ORG_KEY, JSON.stringify(org));
    else sessionStorage.removeItem(ORG_KEY);
  },
};

export const session = {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  signIn(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(ORG_KEY);
  },
};

/** `de-DE, de;q=0.9, en;q=0.8` from navigator.languages, the console's language first. */
export function acceptLanguage(): string {
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language || 'en'];
  // The server's refusals in the language the page is in (the switch may differ from the browser).
  const langs = browser[0]?.toLowerCase().split('-')[0] === language ? browser : [language, ...browser.filter((l) => l.toLowerCase().split('-')[0] !== language)];
  return langs
    .slice(0, 6)
    .map((lang, i) => (i === 0 ? lang : `${lang};q=${(1 - i / 10).toFixed(1)}`))
    .join(', ');
}

/** Fired on window when the server refuses the token; the shell shows sign-in. */
export const SIGNED_OUT_EVENT = 'keyhold:signed-out';

const headers: Interceptor = (next) => async (req) => {
  // A call may bring its own token (sign-in checks one before keeping it).
  const token = req.header.has('authorization') ? undefined : session.token;
  if (token) req.header.set('authorization', `Bearer ${token}`);
  req.header.set('accept-language', acceptLanguage());
  const org = orgContext.current;
  if (org && !req.header.has('x-service-orgid')) req.header.set('x-service-orgid', org.id);
  try {
    return await next(req);
  } catch (e) {
    const err = ConnectError.from(e);
    if (err.code === Code.Unauthenticated && token && token === session.token) {
      session.signOut();
      window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT, { detail: describeError(err).message }));
    }
    throw err;
  }
};

const transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
  interceptors: [headers],
});

export const management = createClient(ManagementService, transport);
export const users = createClient(UserService, transport);
export const auth = createClient(AuthService, transport);
export const orgs = createClient(OrganizationService, transport);
export const admin = createClient(AdminService, transport);

export interface FieldProblem {
  /** JSON path as the server names it, e.g. `redirectUris[0]`. */
  field: string;
  description: string;
}

export interface Problem {
  code: Code;
  /** ErrorInfo.reason, e.g. `APP_NAME_TAKEN`. */
  reason?: string;
  /** The server's message in the caller's language, or our own words. */
  message: string;
  violations: FieldProblem[];
}

/** Reads a failed call's google.rpc details: ErrorInfo, LocalizedMessage, BadRequest. */
export function describeError(e: unknown): Problem {
  const err = ConnectError.from(e);
  const info = err.findDetails(ErrorInfoSchema)[0];
  const localized = err.findDetails(LocalizedMessageSchema)[0];
  const badRequest = err.findDetails(BadRequestSchema)[0];
  let message = localized?.message || err.rawMessage;
  if (!info && (err.code === Code.Unavailable || err.code === Code.Unknown || err.code === Code.Internal) && /fetch|network|load failed/i.test(err.rawMessage)) {
    message = L.unreachable;
  }
  return {
    code: err.code,
    reason: info?.reason,
    message: message || L.requestFailed(String(Code[err.code] ?? err.code)),
    violations: (badRequest?.fieldViolations ?? []).map((v) => ({ field: v.field, description: v.description })),
  };
}
