-- Identity providers people sign in with, and the links of their external
-- identities to users. identity_providers is a read model of the idp.*
-- events (the settings as they are now, never the secret); idp_links of the
-- idplink.* events, one row per (provider, upstream subject): the unique key
-- is the rule "one identity, one user" as the database holds it too.
-- idp_secrets is not a read model: the client secret is in no event; it is
-- sealed under a key derived from the master key, bound to its provider's
-- id, and deleted with the provider by the idp.removed projection.
CREATE TABLE IF NOT EXISTS "identity_providers" (
	"idp_id" text PRIMARY KEY NOT NULL,
	"org_id" text,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "identity_providers_org_id_idx" ON "identity_providers" USING btree ("org_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "idp_links" (
	"link_id" text PRIMARY KEY NOT NULL,
	"idp_id" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idp_links_idp_subject_key" UNIQUE("idp_id","subject")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "idp_links_user_id_idx" ON "idp_links" USING btree ("user_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "idp_secrets" (
	"idp_id" text PRIMARY KEY NOT NULL,
	"sealed" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
