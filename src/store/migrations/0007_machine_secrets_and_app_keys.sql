CREATE TABLE "app_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"public_key" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "machine_users" (
	"user_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"access_token_type" text DEFAULT 'bearer' NOT NULL,
	"client_id" text,
	"client_secret_hash" text,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "machine_users_client_id_key" UNIQUE("client_id"),
	CONSTRAINT "machine_users_access_token_type_check" CHECK ("machine_users"."access_token_type" in ('bearer', 'jwt'))
);
--> statement-breakpoint
CREATE INDEX "app_keys_app_id_idx" ON "app_keys" USING btree ("app_id");--> statement-breakpoint
-- Machine users added before this migration: BEARER tokens, no secret yet.
INSERT INTO "machine_users" ("user_id", "org_id", "changed_at") SELECT "id", "org_id", "changed_at" FROM "users" WHERE "kind" = 'machine';
