CREATE TABLE "user_recovery_codes" (
	"user_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"unused" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
