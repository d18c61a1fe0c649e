-- A user's authenticator app (TOTP). user_totp is a read model of the
-- user.totp.* events (which TOTP, pending or ready): one row per user, the
-- login's "has a ready TOTP" is a read of its primary key. totp_secrets is
-- not a read model: the secret is in no event, so replaying events cannot
-- make it; it holds the secret sealed under a key derived from the master
-- key, and the last accepted time step (each code is accepted once). The
-- events' projection deletes a replaced or removed TOTP's secret.
CREATE TABLE IF NOT EXISTS "user_totp" (
	"user_id" text PRIMARY KEY NOT NULL,
	"totp_id" text NOT NULL,
	"org_id" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "totp_secrets" (
	"totp_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"sealed" text NOT NULL,
	"last_step" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "totp_secrets_user_id_idx" ON "totp_secrets" USING btree ("user_id");
