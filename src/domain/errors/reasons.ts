// Every error Keyhold returns, in one table: its stable reason (ErrorInfo.reason),
// its gRPC code, and its message in each language. Messages are templates:
// "{name}" is replaced from the error's metadata. Messages never carry secrets,
// tokens or values echoed from the client beyond ids.
import type { Language } from '../i18n/language.js';

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
  ROUTE_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: {
      en: 'There is no endpoint at {method} {path}.',
      de: 'Unter {method} {path} gibt es keinen Endpunkt.',
    },
  },
  METHOD_NOT_ALLOWED: {
    code: GrpcCode.Unimplemented,
    messages: {
      en: 'The endpoint {path} does not answer {method}.',
      de: 'Der Endpunkt {path} beantwortet {method} nicht.',
    },
  },
  RATE_LIMITED: {
    code: GrpcCode.ResourceExhausted,
    messages: {
      en: 'Too many requests; slow down and try again shortly.',
      de: 'Zu viele Anfragen; bitte kurz warten und erneut versuchen.',
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
  PERMISSION_DENIED: {
    code: GrpcCode.PermissionDenied,
    messages: {
      en: 'The caller lacks the permission {permission} for this resource.',
      de: 'Dem Aufrufer fehlt die Berechtigung {permission} für diese Ressource.',
    },
  },
  // --- objects ---------------------------------------------------------------
  ORG_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Organization {orgId} was not found.', de: 'Die Organisation {orgId} wurde nicht gefunden.' },
  },
  PROJECT_NOT_FOUND: {
    code: GrpcCode.NotFound,
    messages: { en: 'Project {projectId} was not found.', de: 'Das Projekt {projectId} wurde nicht gefunden.' },
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
      en: 'The organization already has a user with this username.',
      de: 'Die Organisation hat bereits einen Benutzer mit diesem Benutzernamen.',
    },
  },
  USER_ID_TAKEN: {
    code: GrpcCode.AlreadyExists,
    messages: { en: 'A user with id {userId} already exists.', de: 'Ein Benutzer mit der ID {userId} existiert bereits.' },
  },
  APP_NOT_OIDC_SECRET: {
    code: GrpcCode.FailedPrecondition,
    messages: {
      en: 'Application {appId} authenticates without a client secret, so none can be generated.',
      de: 'Die Anwendung {appId} meldet sich ohne Client-Secret an, daher kann keines erzeugt werden.',
    },
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
  CREDENTIAL_ALREADY_REGISTERED: {
    code: GrpcCode.AlreadyExists,
    messages: {
      en: 'This security key is already registered.',
      de: 'Dieser Sicherheitsschlüssel ist bereits registriert.',
    },
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

/** Fills "{key}" placeholders from metadata; unknown keys stay visible. */
export function renderMessage(reason: Reason, lang: Language, metadata: Record<string, string>): string {
  return REASONS[reason].messages[lang].replace(/\{(\w+)\}/g, (whole, key: string) => metadata[key] ?? whole);
}
