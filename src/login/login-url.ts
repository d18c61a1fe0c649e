// Where a login's page is: the issuer's /ui/login/<interaction uid>. Every
// redirect of the login UI names it absolutely, made from the configured
// issuer (never from the request's Host), as the library's own redirects are
// (extensions.ts 8.).
export const LOGIN_PATH = '/ui/login';

export const loginUrl = (issuer: string, uid: string): string => `${issuer}${LOGIN_PATH}/${encodeURIComponent(uid)}`;
