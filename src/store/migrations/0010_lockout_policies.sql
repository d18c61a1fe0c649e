CREATE TABLE "lockout_policies" (
	"org_id" text PRIMARY KEY NOT NULL,
	"max_password_attempts" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
