-- An org is active or deactivated (DeactivateOrg): a deactivated org's users
-- cannot log in and its apps cannot authenticate (store/queries/users.ts,
-- apps.ts read an org's state with its users and apps).
ALTER TABLE "orgs" ADD COLUMN IF NOT EXISTS "state" text DEFAULT 'active' NOT NULL;
