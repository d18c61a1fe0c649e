CREATE TABLE "login_policies" (
	"org_id" text PRIMARY KEY NOT NULL,
	"force_mfa" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
