-- A user's login sessions as the user sees them (the account page, ListUserSessions):
-- one row per oidc-provider session (its uid, never the cookie's value), written
-- when the session is saved (server/oidc/adapter.ts; last use at most once a
-- minute) and marked ended in the transaction of the change that ends it
-- (store/projections/oidc-sessions.ts). An ended row waits until the apps the
-- session signed in to were sent their logout tokens (notified_at;
-- server/oidc/backchannel-logout.ts), then is deleted with its expiry.
CREATE TABLE IF NOT EXISTS "user_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"device" text DEFAULT '' NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"apps" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expires_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"notified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "user_sessions_user_id_idx" ON "user_sessions" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "user_sessions_to_notify_idx" ON "user_sessions" USING btree ("ended_at") WHERE "ended_at" IS NOT NULL AND "notified_at" IS NULL;
