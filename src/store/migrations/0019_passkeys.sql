-- Passkeys (RegisterPasskey … VerifyPasskeyRegistration): one row per
-- registration, pending then ready, as u2f_tokens. A replaced or removed
-- passkey's row is deleted.
CREATE TABLE IF NOT EXISTS "passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"state" text NOT NULL,
	"rp_id" text NOT NULL,
	"challenge" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"name" text,
	"credential_id" text,
	"public_key" text,
	"algorithm" integer,
	"format" text,
	"aaguid" text,
	"sign_count" bigint,
	"transports" text[],
	"backup_eligible" boolean,
	"backed_up" boolean,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "passkeys_state_check" CHECK ("state" in ('pending', 'ready'))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "passkeys_user_id_idx" ON "passkeys" USING btree ("user_id");
--> statement-breakpoint
-- Every verified WebAuthn credential id, of a security key or a passkey, to
-- the user and the token holding it: one credential belongs to one user and
-- one token only (CREDENTIAL_ALREADY_REGISTERED), and the discoverable
-- login finds the passkey an assertion names by its primary key.
CREATE TABLE IF NOT EXISTS "webauthn_credentials" (
	"credential_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"token_id" text NOT NULL,
	CONSTRAINT "webauthn_credentials_kind_check" CHECK ("kind" in ('u2f', 'passkey'))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webauthn_credentials_token_id_idx" ON "webauthn_credentials" USING btree ("token_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webauthn_credentials_user_id_idx" ON "webauthn_credentials" USING btree ("user_id");
--> statement-breakpoint
INSERT INTO "webauthn_credentials" ("credential_id", "user_id", "kind", "token_id")
	SELECT "credential_id", "user_id", 'u2f', "id" FROM "u2f_tokens" WHERE "state" = 'ready' AND "credential_id" IS NOT NULL
	ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- ZITADEL's passwordlessType and allowUsernamePassword; an existing policy keeps
-- the defaults (passkeys allowed, password allowed).
ALTER TABLE "login_policies" ADD COLUMN IF NOT EXISTS "passwordless_allowed" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "login_policies" ADD COLUMN IF NOT EXISTS "allow_username_password" boolean DEFAULT true NOT NULL;
