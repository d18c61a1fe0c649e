-- A user grant is active or deactivated (DeactivateUserGrant): an inactive one
-- keeps its roles but gives none (store/queries/projects.ts projectRolesOfUser).
-- A removed user's grants leave the read model with it (projections/projects.ts);
-- those of users removed before go here.
ALTER TABLE "user_grants" ADD COLUMN IF NOT EXISTS "state" text DEFAULT 'active' NOT NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "user_grants_org_id_idx" ON "user_grants" USING btree ("org_id");
--> statement-breakpoint
DELETE FROM "user_grants" WHERE NOT EXISTS (SELECT 1 FROM "users" WHERE "users"."id" = "user_grants"."user_id");
