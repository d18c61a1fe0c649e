-- A project and a user belong to an existing org: a creation that commits
-- after RemoveOrg deleted the org row is refused, and RemoveOrg whose append
-- meets a project or user created meanwhile is refused and decided again
-- (commands/orgs/org-lifecycle.ts). NOT VALID: rows left without an org
-- before this version are not checked; every new row and every org removal is.
-- Dropped first, so a run of this migration again changes nothing.
ALTER TABLE "projects" DROP CONSTRAINT IF EXISTS "projects_org_fk";--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_fk" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") NOT VALID;--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT IF EXISTS "users_org_fk";--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_org_fk" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") NOT VALID;
