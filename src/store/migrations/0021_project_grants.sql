-- Projects granted to other orgs (AddProjectGrant): one row per project and
-- granted org, deleted when the grant, its project or the granted org is removed.
-- A user grant given under a project grant names it (project_grant_id): removing
-- the project grant removes those user grants, narrowing it narrows them.
CREATE TABLE IF NOT EXISTS "project_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"granted_org_id" text NOT NULL,
	"role_keys" text[] NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "project_grants_project_org_key" ON "project_grants" USING btree ("project_id","granted_org_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "project_grants_granted_org_id_idx" ON "project_grants" USING btree ("granted_org_id");
--> statement-breakpoint
ALTER TABLE "user_grants" ADD COLUMN IF NOT EXISTS "project_grant_id" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "user_grants_project_grant_id_idx" ON "user_grants" USING btree ("project_grant_id");
