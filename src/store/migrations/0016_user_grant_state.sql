-- A user grant is active or deactivated (DeactivateUserGrant): an inactive one
-- keeps its roles but gives none (store/queries/projects.ts projectRolesOfUser).
ALTER TABLE "user_grants" ADD COLUMN IF NOT EXISTS "state" text DEFAULT 'active' NOT NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "user_grants_org_id_idx" ON "user_grants" USING btree ("org_id");
