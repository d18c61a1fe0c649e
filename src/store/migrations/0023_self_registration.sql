-- Self-registration, per org (the login policy's allowRegister, off by default):
-- the address domains a registration may use (space-separated, lower-case
-- ASCII; empty: any) and whether the address must be verified before the first
-- login (on by default). A user who registered under that rule carries
-- registration_unverified until its address is verified.
ALTER TABLE "login_policies" ADD COLUMN IF NOT EXISTS "allow_register" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "login_policies" ADD COLUMN IF NOT EXISTS "register_domains" text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE "login_policies" ADD COLUMN IF NOT EXISTS "register_verification" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "registration_unverified" boolean DEFAULT false NOT NULL;
