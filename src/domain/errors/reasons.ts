// Every error Keyhold returns, in one table: its stable reason (ErrorInfo.reason),
// its gRPC code, and its message in each language. Messages are templates:
// "{name}" is replaced from the error's metadata. Messages never carry secrets,
// tokens or values echoed from the client beyond ids.
import type { Language } from '../i18n/language.js';
import { localize } from '../i18n/text.js';

/** gRPC status codes used by Keyhold (numbers as on the wire). */
export const GrpcCode = {
  Cancelled: 1,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

interface ReasonEntry {
  code: GrpcCode;
  messages: Record<Language, string>;
  /** A retryable refusal: clients are told to wait this long (retry-after, RetryInfo). */
  retryAfterSeconds?: number;
  /** REST's status when grpc-gateway's table for the code says less (IETF Idempotency-Key draft: 422). */
  httpStatus?: number;
}

export const REASONS = {
  // --- request shape -------------------------------------------------------
  INVALID_REQUEST: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The request is invalid; check these fields: {fields}',
      de: 'Die Anfrage ist ungültig; bitte diese Felder prüfen: {fields}',
    },
  },
  MALFORMED_BODY: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The request body could not be read: {problem}',
      de: 'Der Inhalt der Anfrage konnte nicht gelesen werden: {problem}',
    },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'This endpoint accepts application/json bodies only.',
      de: 'Dieser Endpunkt nimmt nur Inhalte vom Typ application/json an.',
    },
  },
  BODY_TOO_LARGE: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'The request body is larger than the limit of {limit} bytes.',
      de: 'Der Inhalt der Anfrage ist größer als die Grenze von {limit} Bytes.',
    },
  },
  // Neither echoes the request's path or query (a token put there by mistake
  // must not come back in a body or a log): the endpoint's template at most.
  ROUTE_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'There is no endpoint at this path.',
      de: 'Unter diesem Pfad gibt es keinen Endpunkt.',
    },
  },
  HEALTH_SERVICE_UNKNOWN: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'The health service knows no service named "{service}".',
      de: 'Der Health-Dienst kennt keinen Dienst namens "{service}".',
    },
  },
  METHOD_NOT_ALLOWED: {
    code: GrpcCode.Unimplemented,
    messages: {
      en: 'The endpoint {endpoint} does not answer this HTTP method; the Allow header lists those it does.',
      de: 'Der Endpunkt {endpoint} beantwortet diese HTTP-Methode nicht; der Allow-Header nennt die, die er beantwortet.',
    },
  },
  RATE_LIMITED: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many requests; slow down and try again shortly.',
      de: 'Zu viele Anfragen; bitte kurz warten und erneut versuchen.',
    },
  },
  // --- protocol hygiene: ambiguous requests are refused --------------------
  BODY_NOT_UTF8: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The request body is not valid UTF-8 text.',
      de: 'Der Inhalt der Anfrage ist kein gültiger UTF-8-Text.',
    },
  },
  JSON_DUPLICATE_KEY: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The JSON has the key {field} more than once in the same object; send each key once.',
      de: 'Das JSON enthält den Schlüssel {field} mehrmals im selben Objekt; jeden Schlüssel nur einmal senden.',
    },
  },
  JSON_UNPAIRED_SURROGATE: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The JSON string at {field} has an escape for half a surrogate pair (\\uD800–\\uDFFF), which no text can store.',
      de: 'Die JSON-Zeichenkette bei {field} enthält ein Escape für ein halbes Surrogatpaar (\\uD800–\\uDFFF), das kein Text speichern kann.',
    },
  },
  JSON_PROTOTYPE_KEY: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The JSON key {field} is not accepted.',
      de: 'Der JSON-Schlüssel {field} wird nicht angenommen.',
    },
  },
  REPEATED_HEADER: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The request has the header {header} more than once; it may appear once.',
      de: 'Die Anfrage enthält den Header {header} mehrmals; er darf nur einmal vorkommen.',
    },
  },
  HEADERS_TOO_LARGE: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'The request headers are larger than the limit of {limit} bytes.',
      de: 'Die Header der Anfrage sind größer als die Grenze von {limit} Bytes.',
    },
  },
  REQUEST_MALFORMED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The HTTP request could not be read: {problem}',
      de: 'Die HTTP-Anfrage konnte nicht gelesen werden: {problem}',
    },
  },
  REQUEST_TIMEOUT: {
    code: GrpcCode.DeadlineExceeded,
    messages: {
      en: 'The request did not arrive in time.',
      de: 'Die Anfrage ist nicht rechtzeitig angekommen.',
    },
  },
  DEADLINE_EXCEEDED: {
    code: GrpcCode.DeadlineExceeded,
    messages: {
      en: 'The deadline of the call passed before it ran; nothing was changed.',
      de: 'Die Frist des Aufrufs ist abgelaufen, bevor er ausgeführt wurde; nichts wurde geändert.',
    },
  },
  // --- authentication and authorization ------------------------------------
  UNAUTHENTICATED: {
    code: GrpcCode.Unauthenticated,
    messages: {
      en: 'A valid bearer token is required.',
      de: 'Ein gültiges Bearer-Token ist erforderlich.',
    },
  },
  // A sender-constrained token (DPoP, domain/oidc/dpop-proof.ts); `problem` is one of that file's fixed texts.
  DPOP_PROOF_REQUIRED: {
    code: GrpcCode.Unauthenticated,
    messages: {
      en: 'This token is bound to a key (DPoP): send it as "Authorization: DPoP <token>" with a DPoP proof of that key.',
      de: 'Dieses Token ist an einen Schlüssel gebunden (DPoP): bitte als "Authorization: DPoP <token>" mit einem DPoP-Nachweis dieses Schlüssels senden.',
    },
  },
  DPOP_PROOF_INVALID: {
    code: GrpcCode.Unauthenticated,
    messages: {
      en: 'The DPoP proof was refused: {problem}.',
      de: 'Der DPoP-Nachweis wurde abgelehnt: {problem}.',
    },
  },
  DPOP_TOKEN_NOT_BOUND: {
    code: GrpcCode.Unauthenticated,
    messages: {
      en: 'This token is bound to no key: send it as "Authorization: Bearer <token>".',
      de: 'Dieses Token ist an keinen Schlüssel gebunden: bitte als "Authorization: Bearer <token>" senden.',
    },
  },
  PERMISSION_DENIED: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'The caller lacks the permission {permission} for this resource.',
      de: 'Dem Aufrufer fehlt die Berechtigung {permission} für diese Ressource.',
    },
  },
  APP_API_ACCESS_PROTECTED: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'Application {appId} may act as its users on Keyhold\'s API: only an instance administrator may change its name, configuration, secret or keys.',
      de: 'Die Anwendung {appId} darf im Namen ihrer Benutzer die API von Keyhold nutzen: Nur eine Instanz-Administratorin oder ein Instanz-Administrator darf ihren Namen, ihre Konfiguration, ihr Secret oder ihre Schlüssel ändern.',
    },
  },
  // --- privilege containment -------------------------------------------------
  PRIVILEGE_ESCALATION: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'User {userId} holds, or would be given, permissions the caller does not hold; a caller can only create credentials for, or grant roles to, principals within its own permissions.',
      de: 'Der Benutzer {userId} hat Berechtigungen, die dem Aufrufer fehlen, oder bekäme sie; ein Aufrufer kann Zugangsdaten und Rollen nur im Rahmen seiner eigenen Berechtigungen vergeben.',
    },
  },
  PAT_ONLY_FOR_MACHINE_USERS: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Personal access tokens are for machine users only; user {userId} is a human user.',
      de: 'Persönliche Zugriffstoken gibt es nur für Maschinenbenutzer; der Benutzer {userId} ist ein Mensch.',
    },
  },
  PASSWORD_ONLY_FOR_HUMAN_USERS: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Passwords are for human users only; user {userId} is a machine user.',
      de: 'Passwörter gibt es nur für Menschen; der Benutzer {userId} ist ein Maschinenbenutzer.',
    },
  },
  // --- end of privilege containment -------------------------------------------
  // --- objects ---------------------------------------------------------------
  ORG_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Organization {orgId} was not found.', de: 'Die Organisation {orgId} wurde nicht gefunden.' },
  },
  PROJECT_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Project {projectId} was not found.', de: 'Das Projekt {projectId} wurde nicht gefunden.' },
  },
  MEMBER_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'User {userId} is not a member of {scope} {scopeId}; add it with AddOrgMember or AddProjectMember.',
      de: 'Der Benutzer {userId} ist kein Mitglied von {scope} {scopeId}; füge ihn mit AddOrgMember oder AddProjectMember hinzu.',
    },
  },
  LAST_ORG_OWNER: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} is the last ORG_OWNER of organization {orgId}: an organization keeps at least one owner. Make another member ORG_OWNER first.',
      de: 'Der Benutzer {userId} ist der letzte ORG_OWNER der Organisation {orgId}: eine Organisation behält mindestens einen Eigentümer. Mache zuerst ein anderes Mitglied zum ORG_OWNER.',
    },
  },
  LAST_SECOND_FACTOR: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} keeps at least one second factor: the organization requires one. Add another security key, passkey or authenticator app first.',
      de: 'Der Benutzer {userId} behält mindestens einen zweiten Faktor: die Organisation verlangt einen. Füge zuerst einen anderen Sicherheitsschlüssel, Passkey oder eine Authenticator-App hinzu.',
    },
  },
  LAST_IAM_OWNER: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} is an IAM_OWNER of organization {orgId}, and no active IAM_OWNER would remain outside it: the instance keeps at least one. Make a user of another organization IAM_OWNER first.',
      de: 'Der Benutzer {userId} ist IAM_OWNER der Organisation {orgId}, und außerhalb davon bliebe kein aktiver IAM_OWNER: die Instanz behält mindestens einen. Mache zuerst einen Benutzer einer anderen Organisation zum IAM_OWNER.',
    },
  },
  USER_GRANT_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'User grant {grantId} was not found.', de: 'Die Berechtigung {grantId} wurde nicht gefunden.' },
  },
  APP_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Application {appId} was not found.', de: 'Die Anwendung {appId} wurde nicht gefunden.' },
  },
  USER_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'User {userId} was not found.', de: 'Der Benutzer {userId} wurde nicht gefunden.' },
  },
  U2F_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Security key {u2fId} was not found for this user.',
      de: 'Der Sicherheitsschlüssel {u2fId} wurde für diesen Benutzer nicht gefunden.',
    },
  },
  APP_NAME_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'The project already has an application with this name.',
      de: 'Das Projekt hat bereits eine Anwendung mit diesem Namen.',
    },
  },
  USERNAME_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'A user with this username exists already; usernames are login names, unique across all organizations.',
      de: 'Ein Benutzer mit diesem Benutzernamen existiert bereits; Benutzernamen sind Anmeldenamen und über alle Organisationen eindeutig.',
    },
  },
  ROLE_KEY_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'Project {projectId} already has a role with the key {roleKey}.',
      de: 'Das Projekt {projectId} hat bereits eine Rolle mit dem Schlüssel {roleKey}.',
    },
  },
  PROJECT_ROLE_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Project {projectId} has no role with the key {roleKey}.', de: 'Das Projekt {projectId} hat keine Rolle mit dem Schlüssel {roleKey}.' },
  },
  PROJECT_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Project {projectId} is not active.', de: 'Das Projekt {projectId} ist nicht aktiv.' },
  },
  PROJECT_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Project {projectId} is not deactivated.', de: 'Das Projekt {projectId} ist nicht deaktiviert.' },
  },
  CASCADE_TOO_LARGE: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This would change {count} objects (user grants, apps, projects, users) in one step; at most {max} can be. Remove some of them first.',
      de: 'Dies würde {count} Objekte (Benutzerberechtigungen, Anwendungen, Projekte, Benutzer) in einem Schritt ändern; höchstens {max} sind möglich. Entfernen Sie zuerst einige davon.',
    },
  },
  ORG_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Organization {orgId} is not active.', de: 'Die Organisation {orgId} ist nicht aktiv.' },
  },
  ORG_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Organization {orgId} is not deactivated.', de: 'Die Organisation {orgId} ist nicht deaktiviert.' },
  },
  CONSOLE_ORG_PROTECTED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: "Organization {orgId} is the instance's first organization and holds Keyhold's console project: deactivating or removing it would lock every administrator out of the console.",
      de: 'Die Organisation {orgId} ist die erste Organisation der Instanz und enthält das Konsolen-Projekt von Keyhold: sie zu deaktivieren oder zu entfernen, würde alle Administratoren aus der Konsole aussperren.',
    },
  },
  CONSOLE_PROJECT_PROTECTED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: "Project {projectId} holds Keyhold's console app: deactivating or removing it, or restricting who may log in to it, would lock every administrator out of the console.",
      de: 'Das Projekt {projectId} enthält die Konsolen-Anwendung von Keyhold: es zu deaktivieren, zu entfernen oder einzuschränken, wer sich anmelden darf, würde alle Administratoren aus der Konsole aussperren.',
    },
  },
  USER_GRANT_EXISTS: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'User {userId} already has a grant on project {projectId}.',
      de: 'Der Benutzer {userId} hat bereits eine Berechtigung für das Projekt {projectId}.',
    },
  },
  USER_ID_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: { en: 'A user with id {userId} already exists.', de: 'Ein Benutzer mit der ID {userId} existiert bereits.' },
  },
  // A create on an id that is in use: ids are drawn at random (domain/ids.ts), so
  // only a caller-chosen id (USER_ID_TAKEN) meets this in practice.
  ID_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: { en: 'An object with id {id} exists already.', de: 'Ein Objekt mit der ID {id} existiert bereits.' },
  },
  APP_NOT_OIDC_SECRET: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Application {appId} authenticates without a client secret, so none can be generated.',
      de: 'Die Anwendung {appId} meldet sich ohne Client-Secret an, daher kann keines erzeugt werden.',
    },
  },
  USER_ALREADY_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User {userId} is already deactivated.', de: 'Der Benutzer {userId} ist bereits deaktiviert.' },
  },
  USER_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User {userId} is not deactivated.', de: 'Der Benutzer {userId} ist nicht deaktiviert.' },
  },
  USER_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User {userId} is not active.', de: 'Der Benutzer {userId} ist nicht aktiv.' },
  },
  USER_NOT_LOCKED: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User {userId} is not locked.', de: 'Der Benutzer {userId} ist nicht gesperrt.' },
  },
  USER_NOT_HUMAN: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User {userId} is not a human user.', de: 'Der Benutzer {userId} ist kein menschlicher Benutzer.' },
  },
  USER_SELF_LIFECYCLE: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'A user cannot deactivate, lock or remove itself.',
      de: 'Ein Benutzer kann sich nicht selbst deaktivieren, sperren oder entfernen.',
    },
  },
  PAT_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Personal access token {tokenId} of user {userId} was not found.', de: 'Das persönliche Zugriffstoken {tokenId} des Benutzers {userId} wurde nicht gefunden.' },
  },
  USER_METADATA_NOT_FOUND: {
    code: GrpcCode.NotFound,
    // The key is the client's text: not echoed (the request names it).
    messages: { en: 'User {userId} has no metadata with this key.', de: 'Der Benutzer {userId} hat keine Metadaten mit diesem Schlüssel.' },
  },
  APP_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Application {appId} is not active.', de: 'Die Anwendung {appId} ist nicht aktiv.' },
  },
  APP_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Application {appId} is not deactivated.', de: 'Die Anwendung {appId} ist nicht deaktiviert.' },
  },
  PROJECT_GRANT_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Project grant {grantId} was not found.', de: 'Die Projektberechtigung {grantId} wurde nicht gefunden.' },
  },
  PROJECT_GRANT_EXISTS: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'Project {projectId} is already granted to organization {grantedOrgId}; change that grant instead.',
      de: 'Das Projekt {projectId} ist der Organisation {grantedOrgId} bereits gewährt; ändere stattdessen diese Berechtigung.',
    },
  },
  PROJECT_GRANT_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Project grant {grantId} is not active.', de: 'Die Projektberechtigung {grantId} ist nicht aktiv.' },
  },
  PROJECT_GRANT_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'Project grant {grantId} is not deactivated.', de: 'Die Projektberechtigung {grantId} ist nicht deaktiviert.' },
  },
  USER_GRANT_NOT_ACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User grant {grantId} is not active.', de: 'Die Berechtigung {grantId} ist nicht aktiv.' },
  },
  USER_GRANT_NOT_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: { en: 'User grant {grantId} is not deactivated.', de: 'Die Berechtigung {grantId} ist nicht deaktiviert.' },
  },
  // --- security keys ---------------------------------------------------------
  U2F_ALREADY_VERIFIED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key registration was already completed.',
      de: 'Diese Registrierung eines Sicherheitsschlüssels wurde bereits abgeschlossen.',
    },
  },
  U2F_REGISTRATION_EXPIRED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key registration has expired; start a new one.',
      de: 'Diese Registrierung eines Sicherheitsschlüssels ist abgelaufen; bitte neu beginnen.',
    },
  },
  U2F_REGISTRATION_REPLACED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key registration was ended because newer ones were started; start a new one.',
      de: 'Diese Registrierung eines Sicherheitsschlüssels wurde beendet, weil neuere begonnen wurden; bitte neu beginnen.',
    },
  },
  // --- login policy --------------------------------------------------------
  LOGIN_POLICY_EXISTS: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'Organization {orgId} already has its own login policy; change it with UpdateCustomLoginPolicy.',
      de: 'Die Organisation {orgId} hat bereits eine eigene Login-Richtlinie; ändere sie mit UpdateCustomLoginPolicy.',
    },
  },
  LOGIN_POLICY_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Organization {orgId} has no login policy of its own (it uses the default); add one with AddCustomLoginPolicy.',
      de: 'Die Organisation {orgId} hat keine eigene Login-Richtlinie (sie verwendet die Vorgabe); lege eine mit AddCustomLoginPolicy an.',
    },
  },
  // --- lockout policy -----------------------------------------------------
  LOCKOUT_POLICY_EXISTS: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'Organization {orgId} already has its own lockout policy; change it with UpdateCustomLockoutPolicy.',
      de: 'Die Organisation {orgId} hat bereits eine eigene Sperr-Richtlinie; ändere sie mit UpdateCustomLockoutPolicy.',
    },
  },
  LOCKOUT_POLICY_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Organization {orgId} has no lockout policy of its own (it uses the default: no lock); add one with AddCustomLockoutPolicy.',
      de: 'Die Organisation {orgId} hat keine eigene Sperr-Richtlinie (sie verwendet die Vorgabe: keine Sperre); lege eine mit AddCustomLockoutPolicy an.',
    },
  },
  // --- security key at login: each shown in plain words on the key step
  U2F_LOGIN_UNKNOWN_CREDENTIAL: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key is not registered for your account (or it was removed). Use one of your registered keys.',
      de: 'Dieser Sicherheitsschlüssel ist für dein Konto nicht registriert (oder wurde entfernt). Verwende einen deiner registrierten Schlüssel.',
    },
  },
  U2F_LOGIN_OTHER_USER: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key belongs to another account. Use your own key.',
      de: 'Dieser Sicherheitsschlüssel gehört zu einem anderen Konto. Verwende deinen eigenen Schlüssel.',
    },
  },
  U2F_LOGIN_WRONG_ORIGIN: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The security key answered for a different website than this one. Open the sign-in page at its own address and try again.',
      de: 'Der Sicherheitsschlüssel hat für eine andere Website als diese geantwortet. Öffne die Anmeldeseite unter ihrer eigenen Adresse und versuche es erneut.',
    },
  },
  U2F_LOGIN_REPLAYED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This answer of the security key was already used. Touch your key again.',
      de: 'Diese Antwort des Sicherheitsschlüssels wurde bereits verwendet. Berühre deinen Schlüssel erneut.',
    },
  },
  U2F_LOGIN_EXPIRED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The request to your security key has expired. Try again.',
      de: 'Die Anfrage an deinen Sicherheitsschlüssel ist abgelaufen. Versuche es erneut.',
    },
  },
  U2F_LOGIN_CANCELLED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The security key prompt was cancelled or timed out. Try again.',
      de: 'Die Abfrage des Sicherheitsschlüssels wurde abgebrochen oder ist abgelaufen. Versuche es erneut.',
    },
  },
  U2F_LOGIN_CLONED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This security key looks copied: its use counter went backwards. Sign-in refused; use another key and tell an administrator.',
      de: 'Dieser Sicherheitsschlüssel scheint kopiert: sein Nutzungszähler ist zurückgegangen. Anmeldung verweigert; verwende einen anderen Schlüssel und informiere eine Administratorin oder einen Administrator.',
    },
  },
  U2F_LOGIN_INVALID: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The answer of the security key could not be verified. Try again.',
      de: 'Die Antwort des Sicherheitsschlüssels konnte nicht geprüft werden. Versuche es erneut.',
    },
  },
  RP_ID_NOT_ALLOWED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The domain is not one of the relying party ids this server is configured for.',
      de: 'Die Domain gehört nicht zu den für diesen Server konfigurierten Relying-Party-IDs.',
    },
  },
  CREDENTIAL_MALFORMED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The public key credential is malformed: {detail}',
      de: 'Der Public-Key-Credential ist fehlerhaft aufgebaut: {detail}',
    },
  },
  WRONG_CEREMONY: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The credential was not produced by a registration (navigator.credentials.create).',
      de: 'Der Credential stammt nicht aus einer Registrierung (navigator.credentials.create).',
    },
  },
  CHALLENGE_MISMATCH: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The credential answers a different challenge than this registration issued.',
      de: 'Der Credential beantwortet eine andere Challenge als die dieser Registrierung.',
    },
  },
  ORIGIN_NOT_ALLOWED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The credential was created on an origin this server does not accept.',
      de: 'Der Credential wurde auf einem Origin erzeugt, den dieser Server nicht akzeptiert.',
    },
  },
  RP_ID_MISMATCH: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The credential was created for a different relying party id.',
      de: 'Der Credential wurde für eine andere Relying-Party-ID erzeugt.',
    },
  },
  USER_NOT_PRESENT: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The authenticator did not confirm user presence.',
      de: 'Der Authenticator hat die Anwesenheit des Benutzers nicht bestätigt.',
    },
  },
  USER_NOT_VERIFIED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The authenticator did not verify the user.',
      de: 'Der Authenticator hat den Benutzer nicht verifiziert.',
    },
  },
  ALGORITHM_NOT_ALLOWED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The credential uses a public key algorithm this server does not accept.',
      de: 'Der Credential verwendet einen Schlüssel-Algorithmus, den dieser Server nicht akzeptiert.',
    },
  },
  ATTESTATION_INVALID: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The attestation of the credential could not be verified: {detail}',
      de: 'Die Attestierung des Credentials konnte nicht geprüft werden: {detail}',
    },
  },
  ATTESTATION_FORMAT_UNSUPPORTED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The attestation format of the credential is not supported.',
      de: 'Das Attestierungsformat des Credentials wird nicht unterstützt.',
    },
  },
  SESSION_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Session {sessionId} was not found for this user (it may have ended already).',
      de: 'Die Sitzung {sessionId} wurde für diesen Benutzer nicht gefunden (sie ist vielleicht schon beendet).',
    },
  },
  PASSKEY_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Passkey {passkeyId} was not found for this user.',
      de: 'Der Passkey {passkeyId} wurde für diesen Benutzer nicht gefunden.',
    },
  },
  PASSKEY_ALREADY_VERIFIED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey registration was already completed.',
      de: 'Diese Registrierung eines Passkeys wurde bereits abgeschlossen.',
    },
  },
  PASSKEY_REGISTRATION_EXPIRED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey registration has expired; start a new one.',
      de: 'Diese Registrierung eines Passkeys ist abgelaufen; bitte neu beginnen.',
    },
  },
  PASSKEY_REGISTRATION_REPLACED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey registration was ended because newer ones were started; start a new one.',
      de: 'Diese Registrierung eines Passkeys wurde beendet, weil neuere begonnen wurden; bitte neu beginnen.',
    },
  },
  PASSKEY_LOGIN_UNKNOWN_CREDENTIAL: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey is not registered (or it was removed). Use another passkey or sign in with your password.',
      de: 'Dieser Passkey ist nicht registriert (oder wurde entfernt). Verwende einen anderen Passkey oder melde dich mit deinem Passwort an.',
    },
  },
  PASSKEY_LOGIN_OTHER_USER: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey does not belong to the account it names. Sign-in refused.',
      de: 'Dieser Passkey gehört nicht zu dem Konto, das er nennt. Anmeldung verweigert.',
    },
  },
  PASSKEY_LOGIN_USER_NOT_VERIFIED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Your device did not verify you (PIN, fingerprint or face). Try again and unlock the passkey.',
      de: 'Dein Gerät hat dich nicht verifiziert (PIN, Fingerabdruck oder Gesicht). Versuche es erneut und entsperre den Passkey.',
    },
  },
  PASSKEY_LOGIN_USER_INACTIVE: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This account cannot sign in: it is deactivated or locked.',
      de: 'Mit diesem Konto ist keine Anmeldung möglich: es ist deaktiviert oder gesperrt.',
    },
  },
  PASSKEY_LOGIN_WRONG_ORIGIN: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The passkey answered for a different website than this one. Open the sign-in page at its own address and try again.',
      de: 'Der Passkey hat für eine andere Website als diese geantwortet. Öffne die Anmeldeseite unter ihrer eigenen Adresse und versuche es erneut.',
    },
  },
  PASSKEY_LOGIN_REPLAYED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This answer of the passkey was already used. Try again.',
      de: 'Diese Antwort des Passkeys wurde bereits verwendet. Versuche es erneut.',
    },
  },
  PASSKEY_LOGIN_CLONED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey looks copied: its use counter went backwards. Sign-in refused; use another way to sign in and tell an administrator.',
      de: 'Dieser Passkey scheint kopiert: sein Nutzungszähler ist zurückgegangen. Anmeldung verweigert; melde dich anders an und informiere eine Administratorin oder einen Administrator.',
    },
  },
  PASSKEY_LOGIN_INVALID: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The answer of the passkey could not be verified. Try again.',
      de: 'Die Antwort des Passkeys konnte nicht geprüft werden. Versuche es erneut.',
    },
  },
  PASSKEY_LOGIN_REFUSED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This passkey cannot sign you in here. Use another passkey or sign in with your username.',
      de: 'Mit diesem Passkey ist hier keine Anmeldung möglich. Verwende einen anderen Passkey oder melde dich mit deinem Benutzernamen an.',
    },
  },
  PASSKEY_LOGIN_NOT_ALLOWED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Your organization does not allow signing in with a passkey. Sign in with your username.',
      de: 'Deine Organisation erlaubt keine Anmeldung mit einem Passkey. Melde dich mit deinem Benutzernamen an.',
    },
  },
  PASSKEY_LOGIN_CANCELLED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The passkey prompt was cancelled or timed out. Try again.',
      de: 'Die Abfrage des Passkeys wurde abgebrochen oder ist abgelaufen. Versuche es erneut.',
    },
  },
  PASSKEY_LOGIN_EXPIRED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The request to your passkey has expired. Try again.',
      de: 'Die Anfrage an deinen Passkey ist abgelaufen. Versuche es erneut.',
    },
  },
  CREDENTIAL_ALREADY_REGISTERED: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'This security key is already registered.',
      de: 'Dieser Sicherheitsschlüssel ist bereits registriert.',
    },
  },
  // --- Idempotency-Key (src/server/rpc/interceptors/idempotency.ts) -------------
  IDEMPOTENCY_KEY_INVALID: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      de: 'Der Header Idempotency-Key muss aus 1 bis 255 druckbaren ASCII-Zeichen bestehen.',
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: GrpcCode.FailedPrecondition,
    httpStatus: 422,
    messages: {
      en: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
      de: 'Dieser Idempotency-Key wurde bereits für eine andere Anfrage verwendet; für eine neue Anfrage bitte einen neuen Schlüssel verwenden.',
    },
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    code: GrpcCode.Aborted,
    messages: {
      en: 'A request with this Idempotency-Key is still being processed; retry shortly to get its answer.',
      de: 'Eine Anfrage mit diesem Idempotency-Key wird noch bearbeitet; bitte gleich erneut senden, um ihre Antwort zu erhalten.',
    },
    retryAfterSeconds: 1,
  },
  // --- infrastructure --------------------------------------------------------
  CONCURRENT_MODIFICATION: {
    code: GrpcCode.Aborted,
    messages: {
      en: 'The object was changed concurrently; retry the request.',
      de: 'Das Objekt wurde gleichzeitig geändert; bitte die Anfrage wiederholen.',
    },
  },
  DATABASE_UNAVAILABLE: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The database is not reachable right now; retry shortly.',
      de: 'Die Datenbank ist gerade nicht erreichbar; bitte gleich erneut versuchen.',
    },
    retryAfterSeconds: 1,
  },
  SERVER_STARTING: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The server is starting and does not serve every endpoint yet; retry shortly.',
      de: 'Der Server startet und bedient noch nicht alle Endpunkte; bitte gleich erneut versuchen.',
    },
    retryAfterSeconds: 1,
  },
  // --- storage: refusals of the disk under the database ---------------------
  // A full disk, a read-only or failing one is an operator's problem, not the
  // client's and not a bug: 503, retryable once storage is back.
  STORAGE_FULL: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The server cannot store anything right now: its disk is full. Retry later.',
      de: 'Der Server kann gerade nichts speichern: sein Datenträger ist voll. Bitte später erneut versuchen.',
    },
    retryAfterSeconds: 10,
  },
  STORAGE_UNAVAILABLE: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The server cannot store anything right now: its storage refuses writes. Retry later.',
      de: 'Der Server kann gerade nichts speichern: sein Speicher nimmt keine Schreibvorgänge an. Bitte später erneut versuchen.',
    },
    retryAfterSeconds: 10,
  },
  // Machine users' client credentials and app keys.
  MACHINE_SECRET_ONLY_FOR_MACHINE_USERS: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Client secrets are for machine users only; user {userId} is a human user.',
      de: 'Client-Secrets gibt es nur für Maschinenbenutzer; der Benutzer {userId} ist ein Mensch.',
    },
  },
  MACHINE_SECRET_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'User {userId} has no client secret.', de: 'Der Benutzer {userId} hat kein Client-Secret.' },
  },
  APP_KEY_NEEDS_PRIVATE_KEY_JWT: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Application {appId} does not authenticate with private_key_jwt; keys are only for apps with the auth method PRIVATE_KEY_JWT.',
      de: 'Die Anwendung {appId} meldet sich nicht mit private_key_jwt an; Schlüssel gibt es nur für Anwendungen mit der Methode PRIVATE_KEY_JWT.',
    },
  },
  APP_KEY_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Key {keyId} of application {appId} was not found.', de: 'Der Schlüssel {keyId} der Anwendung {appId} wurde nicht gefunden.' },
  },
  // A lost key: recovery codes, at the login and on the API.
  RECOVERY_CODES_SELF_ONLY: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'Recovery codes are shown only to their user: user {userId} must generate them while signed in as themself.',
      de: 'Wiederherstellungscodes sieht nur ihr Benutzer selbst: der Benutzer {userId} muss sie angemeldet als er selbst erzeugen.',
    },
  },
  RECOVERY_CODE_WRONG: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'That recovery code is not right, or it was already used. Each code works only once; try another one from your list.',
      de: 'Dieser Wiederherstellungscode stimmt nicht oder wurde schon verwendet. Jeder Code gilt nur einmal; versuche einen anderen aus deiner Liste.',
    },
  },
  RECOVERY_CODE_MALFORMED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'That is not a recovery code. A code has 12 letters and digits, like 4f7k2q-9xm3bd.',
      de: 'Das ist kein Wiederherstellungscode. Ein Code hat 12 Buchstaben und Ziffern, etwa 4f7k2q-9xm3bd.',
    },
  },
  IDP_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'Identity provider {idpId} was not found.',
      de: 'Der Identitätsanbieter {idpId} wurde nicht gefunden.',
    },
  },
  IDP_ALREADY_EXISTS: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'Identity provider {idpId} already exists.',
      de: 'Der Identitätsanbieter {idpId} existiert bereits.',
    },
  },
  IDP_LINK_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'This identity of provider {idpId} is already linked to another user. Remove that link first.',
      de: 'Diese Identität des Anbieters {idpId} ist bereits mit einem anderen Benutzer verknüpft. Entferne zuerst diese Verknüpfung.',
    },
  },
  IDP_LINK_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'User {userId} has no such link to identity provider {idpId}.',
      de: 'Der Benutzer {userId} hat keine solche Verknüpfung mit dem Identitätsanbieter {idpId}.',
    },
  },
  IDP_LINK_REQUIRED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This identity is not linked to an account, and the provider allows neither creating nor linking one. Ask an administrator to link it.',
      de: 'Diese Identität ist mit keinem Konto verknüpft, und der Anbieter erlaubt weder, eines anzulegen, noch eines zu verknüpfen. Bitte eine Administratorin oder einen Administrator, sie zu verknüpfen.',
    },
  },
  TOTP_ALREADY_READY: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} already has an authenticator app. Remove it first (RemoveTOTP) to register another one.',
      de: 'Der Benutzer {userId} hat bereits eine Authenticator-App. Entferne sie zuerst (RemoveTOTP), um eine andere zu registrieren.',
    },
  },
  TOTP_NOT_REGISTERED: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'User {userId} has no authenticator app registration.',
      de: 'Der Benutzer {userId} hat keine Registrierung einer Authenticator-App.',
    },
  },
  TOTP_CODE_WRONG: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'The code from the authenticator app is not right, or it was already used. Enter the code the app shows now.',
      de: 'Der Code aus der Authenticator-App stimmt nicht oder wurde schon verwendet. Gib den Code ein, den die App jetzt anzeigt.',
    },
  },
  TOTP_CODE_MALFORMED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'That is not a code from an authenticator app. A code has 6 digits, like 123456.',
      de: 'Das ist kein Code aus einer Authenticator-App. Ein Code hat 6 Ziffern, etwa 123456.',
    },
  },
  EMAIL_CODE_MAIL_LIMIT: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'User {userId} was mailed {limit} codes in the last 15 minutes. Wait {seconds} seconds, then ask again.',
      de: 'Dem Benutzer {userId} wurden in den letzten 15 Minuten {limit} Codes geschickt. Warte {seconds} Sekunden und frage dann erneut.',
    },
  },
  TOTP_SLOW_DOWN: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many wrong codes. Wait {seconds} seconds, then try again.',
      de: 'Zu viele falsche Codes. Warte {seconds} Sekunden und versuche es dann erneut.',
    },
  },
  RECOVERY_CODE_SLOW_DOWN: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many wrong recovery codes. Wait {seconds} seconds, then try again.',
      de: 'Zu viele falsche Wiederherstellungscodes. Warte {seconds} Sekunden und versuche es dann erneut.',
    },
  },
  REGISTRATION_NOT_ALLOWED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'This organization does not allow registration. Ask an administrator for an invitation.',
      de: 'Diese Organisation erlaubt keine Registrierung. Bitte eine Administratorin oder einen Administrator um eine Einladung.',
    },
  },
  REGISTRATION_DOMAIN_NOT_ALLOWED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'Registration here is open only to addresses of {domains}.',
      de: 'Die Registrierung steht hier nur Adressen von {domains} offen.',
    },
  },
  REGISTRATION_ADDRESS_AMBIGUOUS: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'This address cannot be registered as written: use plain letters and digits (an internationalized domain in its xn-- form).',
      de: 'Diese Adresse kann so nicht registriert werden: Verwende einfache Buchstaben und Ziffern (eine internationalisierte Domain in ihrer xn---Form).',
    },
  },
  REGISTRATION_SLOW_DOWN: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many registrations from this network. Wait {seconds} seconds, then try again.',
      de: 'Zu viele Registrierungen aus diesem Netz. Warte {seconds} Sekunden und versuche es dann erneut.',
    },
  },
  REGISTRATION_UNVERIFIED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Verify your address first: this organization requires a verified address before the first sign-in.',
      de: 'Bestätige zuerst deine Adresse: Diese Organisation verlangt vor der ersten Anmeldung eine bestätigte Adresse.',
    },
  },
  INVITE_CODE_WRONG: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'That invitation code does not work: it is wrong, was already used or has expired. Ask for a new invitation.',
      de: 'Dieser Einladungscode funktioniert nicht: Er ist falsch, wurde schon verwendet oder ist abgelaufen. Bitte um eine neue Einladung.',
    },
  },
  INVITE_CODE_MALFORMED: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'That is not an invitation code. A code has 20 letters and digits, like 4f7k2-q9xm3-bd8c1-7hjkz.',
      de: 'Das ist kein Einladungscode. Ein Code hat 20 Buchstaben und Ziffern, etwa 4f7k2-q9xm3-bd8c1-7hjkz.',
    },
  },
  INVITE_CODE_SLOW_DOWN: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many wrong invitation codes. Wait {seconds} seconds, then try again.',
      de: 'Zu viele falsche Einladungscodes. Warte {seconds} Sekunden und versuche es dann erneut.',
    },
  },
  INVITE_NOT_FOUND: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} has no invitation that still works. Create one (CreateInviteCode).',
      de: 'Der Benutzer {userId} hat keine gültige Einladung. Erstelle eine (CreateInviteCode).',
    },
  },
  INVITE_KEY_NEEDS_PASSWORD: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} signs in without a password: an invitation to add a key needs the password to prove it is the user. The user adds further keys after signing in.',
      de: 'Der Benutzer {userId} meldet sich ohne Passwort an: Eine Einladung zum Hinzufügen eines Schlüssels braucht das Passwort als Nachweis. Weitere Schlüssel fügt der Benutzer nach der Anmeldung selbst hinzu.',
    },
  },
  INVITE_USER_HAS_SECOND_FACTOR: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} already has a second factor. The user adds further keys after signing in with it; an invitation would let the password alone add one.',
      de: 'Der Benutzer {userId} hat bereits einen zweiten Faktor. Weitere Schlüssel fügt der Benutzer nach der Anmeldung damit hinzu; eine Einladung ließe das Passwort allein einen hinzufügen.',
    },
  },
  PASSWORD_RESET_NO_EMAIL: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'User {userId} has no address to send a reset link to. Give the user an address first, or set a new password (SetPassword).',
      de: 'Der Benutzer {userId} hat keine Adresse, an die ein Link zum Zurücksetzen gehen könnte. Gib dem Benutzer zuerst eine Adresse oder setze ein neues Passwort (SetPassword).',
    },
  },
  PASSWORD_RESET_LIMIT: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'User {userId} was sent {limit} reset links in the last {minutes} minutes (at the login or here). The links sent still work; ask again later.',
      de: 'Dem Benutzer {userId} wurden in den letzten {minutes} Minuten {limit} Links zum Zurücksetzen geschickt (bei der Anmeldung oder hier). Die gesendeten Links gelten weiter; frage später erneut.',
    },
  },
  PASSWORD_RESET_MAIL_NOT_CONFIGURED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Keyhold cannot send mail: no mail server is configured (KEYHOLD_SMTP_URL). Ask for the code instead (returnCode) and hand the link over, or set a new password.',
      de: 'Keyhold kann keine Mail senden: Es ist kein Mailserver konfiguriert (KEYHOLD_SMTP_URL). Fordere stattdessen den Code an (returnCode) und gib den Link weiter, oder setze ein neues Passwort.',
    },
  },
  PASSWORD_RESET_MAIL_UNAVAILABLE: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The mail server did not take the reset link. Try again shortly.',
      de: 'Der Mailserver hat den Link zum Zurücksetzen nicht angenommen. Versuche es gleich noch einmal.',
    },
  },
  INVITE_MAIL_NOT_CONFIGURED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Keyhold cannot send mail: no mail server is configured (KEYHOLD_SMTP_URL). Ask for the code instead (returnCode) and hand the link over.',
      de: 'Keyhold kann keine Mail senden: Es ist kein Mailserver konfiguriert (KEYHOLD_SMTP_URL). Fordere stattdessen den Code an (returnCode) und gib den Link weiter.',
    },
  },
  INVITE_MAIL_UNAVAILABLE: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The mail server did not take the invitation. Try again shortly; the earlier code was replaced.',
      de: 'Der Mailserver hat die Einladung nicht angenommen. Versuche es gleich noch einmal; der frühere Code wurde ersetzt.',
    },
  },
  EMAIL_CHANGED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'The address of user {userId} changed meanwhile (or it has none): nothing was sent or verified for it. Try again with its current address.',
      de: 'Die Adresse des Benutzers {userId} hat sich inzwischen geändert (oder er hat keine): Für sie wurde nichts gesendet oder bestätigt. Versuche es mit der aktuellen Adresse erneut.',
    },
  },
  EMAIL_CODE_WRONG: {
    code: GrpcCode.InvalidArgument,
    messages: {
      en: 'That verification code does not work: it is wrong, was already used, has expired or was sent to another address. Ask for a new code.',
      de: 'Dieser Bestätigungscode funktioniert nicht: Er ist falsch, wurde schon verwendet, ist abgelaufen oder ging an eine andere Adresse. Fordere einen neuen Code an.',
    },
  },
  EMAIL_CODE_SLOW_DOWN: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many wrong verification codes. Wait {seconds} seconds, then try again.',
      de: 'Zu viele falsche Bestätigungscodes. Warte {seconds} Sekunden und versuche es dann erneut.',
    },
  },
  EMAIL_SELF_VERIFICATION: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'A user cannot mark its own address as verified: it verifies it with the code sent there (sendCode or returnCode).',
      de: 'Ein Benutzer kann seine eigene Adresse nicht als bestätigt markieren: Er bestätigt sie mit dem dorthin gesendeten Code (sendCode oder returnCode).',
    },
  },
  EMAIL_MAIL_NOT_CONFIGURED: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Keyhold cannot send mail: no mail server is configured (KEYHOLD_SMTP_URL). Ask for the code instead (returnCode) and hand it over.',
      de: 'Keyhold kann keine Mail senden: Es ist kein Mailserver konfiguriert (KEYHOLD_SMTP_URL). Fordere stattdessen den Code an (returnCode) und gib ihn weiter.',
    },
  },
  EMAIL_MAIL_UNAVAILABLE: {
    code: GrpcCode.Unavailable,
    messages: {
      en: 'The mail server did not take the verification mail. Try again shortly (ResendEmailCode).',
      de: 'Der Mailserver hat die Bestätigungsmail nicht angenommen. Versuche es gleich noch einmal (ResendEmailCode).',
    },
  },
  INTERNAL: {
    code: GrpcCode.Internal,
    messages: {
      en: 'An internal error occurred; it has been logged.',
      de: 'Ein interner Fehler ist aufgetreten; er wurde protokolliert.',
    },
  },
  NOT_IMPLEMENTED: {
    code: GrpcCode.Unimplemented,
    messages: {
      en: 'This operation is not available yet.',
      de: 'Diese Operation ist noch nicht verfügbar.',
    },
  },
} satisfies Record<string, ReasonEntry>;

export type Reason = keyof typeof REASONS;

/** The reason's message in `lang`, its "{key}" placeholders filled from metadata (unknown keys stay visible). */
export function renderMessage(reason: Reason, lang: Language, metadata: Record<string, string>): string {
  return localize(REASONS[reason].messages, lang, metadata);
}
