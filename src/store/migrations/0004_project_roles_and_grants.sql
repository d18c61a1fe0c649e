CREATE TABLE "project_roles" (
	"project_id" text NOT NULL,
	"role_key" text NOT NULL,
	"org_id" text NOT NULL,
	"display_name" text NOT NULL,
	"role_group" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "project_roles_pkey" PRIMARY KEY("project_id","role_key")
);
--> statement-breakpoint
CREATE TABLE "user_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"role_keys" text[] NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "project_role_check" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "has_project_check" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "user_grants_user_project_key" ON "user_grants" USING btree ("user_id","project_id");