CREATE TABLE "apps" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"client_id" text,
	"client_secret_hash" text,
	"config" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "apps_client_id_key" UNIQUE("client_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"position" bigserial PRIMARY KEY NOT NULL,
	"aggregate_type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"resource_owner" text NOT NULL,
	"creator" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "events_aggregate_sequence_key" UNIQUE("aggregate_type","aggregate_id","sequence"),
	CONSTRAINT "events_sequence_positive" CHECK ("events"."sequence" >= 1)
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"default_org_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"scope_type" text NOT NULL,
	"scope_id" text NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"roles" text[] NOT NULL,
	CONSTRAINT "memberships_pkey" PRIMARY KEY("scope_type","scope_id","user_id"),
	CONSTRAINT "memberships_scope_type_check" CHECK ("memberships"."scope_type" in ('instance', 'org', 'project'))
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personal_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "personal_access_tokens_token_hash_key" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "u2f_tokens" (
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
	"user_verified" boolean,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "u2f_tokens_credential_id_key" UNIQUE("credential_id"),
	CONSTRAINT "u2f_tokens_state_check" CHECK ("u2f_tokens"."state" in ('pending', 'ready'))
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"username" text NOT NULL,
	"given_name" text,
	"family_name" text,
	"display_name" text,
	"email" text,
	"name" text,
	"description" text,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "users_kind_check" CHECK ("users"."kind" in ('human', 'machine'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "apps_project_name_key" ON "apps" USING btree ("project_id",lower("name"));--> statement-breakpoint
CREATE INDEX "memberships_user_id_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "personal_access_tokens_user_id_idx" ON "personal_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "projects_org_id_idx" ON "projects" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "u2f_tokens_user_id_idx" ON "u2f_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_username_key" ON "users" USING btree ("org_id",lower("username"));