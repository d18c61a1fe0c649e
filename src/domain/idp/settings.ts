// The rules of a provider's settings, every violation at once with its field:
// a name to show on the button, a client id, endpoints over https (http only
// to the loopback host), an id field for a plain OAuth 2.0 provider, scopes
// without spaces. And `isAutoCreation` only with `isCreationAllowed`.
import { violation, type FieldViolation } from '../errors/keyhold-error.js';
import type { IdpSettings } from '../events/idp.js';

const MAX_NAME = 200;
const MAX_URL = 2048;
const MAX_SCOPES = 20;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** https, or http to the loopback host only (a provider on the same machine). */
export function isProviderUrl(url: string): boolean {
  // Stored as typed: what the URL parser would quietly encode or drop (control characters, spaces) is refused.
  if (url.length > MAX_URL || /[\s\u0000-\u001f\u007f]/.test(url)) return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password || u.hash) return false;
  if (u.protocol === 'https:') return true;
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

const URL_TEXT = { en: 'must be an https URL (http only to the loopback host), without user, password or fragment', de: 'muss eine https-URL sein (http nur zum eigenen Rechner), ohne Benutzer, Passwort oder Fragment' };

export function settingsViolations(s: IdpSettings): FieldViolation[] {
  const out: FieldViolation[] = [];
  const name = s.name.trim();
  if (!name) out.push(violation('name', { en: 'is required: it is what the login button says', de: 'ist erforderlich: Es steht auf der Schaltfläche der Anmeldung' }));
  else if (name.length > MAX_NAME || CONTROL.test(name)) out.push(violation('name', { en: `must be at most ${MAX_NAME} characters, without control characters`, de: `darf höchstens ${MAX_NAME} Zeichen lang sein, ohne Steuerzeichen` }));
  if (!s.clientId.trim() || s.clientId.length > MAX_NAME || CONTROL.test(s.clientId)) out.push(violation('clientId', { en: 'is required, at most 200 characters', de: 'ist erforderlich, höchstens 200 Zeichen' }));
  if (s.scopes.length > MAX_SCOPES) out.push(violation('scopes', { en: `may name at most ${MAX_SCOPES} scopes`, de: `darf höchstens ${MAX_SCOPES} Scopes nennen` }));
  s.scopes.forEach((scope, i) => {
    if (!scope || scope.length > 200 || /[\s"\\]/.test(scope) || CONTROL.test(scope)) out.push(violation(`scopes[${i}]`, { en: 'must be one scope, without spaces or quotes', de: 'muss ein Scope sein, ohne Leerzeichen oder Anführungszeichen' }));
  });
  if (s.kind === 'oidc') {
    if (!isProviderUrl(s.issuer)) out.push(violation('issuer', URL_TEXT));
  } else {
    // Named as the API's request names them (ZITADEL's userEndpoint for the userinfo endpoint).
    for (const [field, name] of [['authorizationEndpoint', 'authorizationEndpoint'], ['tokenEndpoint', 'tokenEndpoint'], ['userinfoEndpoint', 'userEndpoint']] as const) {
      if (!isProviderUrl(s[field])) out.push(violation(name, URL_TEXT));
    }
    if (!s.mapping.id?.trim()) out.push(violation('idAttribute', { en: 'is required: the userinfo field holding the person’s id', de: 'ist erforderlich: das Feld der Userinfo mit der Kennung der Person' }));
    // Field names: short text without control characters (ZITADEL's idAttribute, Keyhold's mapping).
    for (const [key, value] of Object.entries(s.mapping)) {
      if (value !== undefined && (value.length > MAX_NAME || CONTROL.test(value))) {
        out.push(violation(key === 'id' ? 'idAttribute' : `mapping.${key}`, { en: `must be a field name of at most ${MAX_NAME} characters, without control characters`, de: `muss ein Feldname von höchstens ${MAX_NAME} Zeichen sein, ohne Steuerzeichen` }));
      }
    }
  }
  if (s.options.isAutoCreation && !s.options.isCreationAllowed) {
    out.push(violation('providerOptions.isAutoCreation', { en: 'needs isCreationAllowed', de: 'setzt isCreationAllowed voraus' }));
  }
  return out;
}
