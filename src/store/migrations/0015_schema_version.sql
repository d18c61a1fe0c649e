-- Which Keyhold last migrated this database (src/store/migrate.ts): one row,
-- written in the transaction of each migration from this one on. An older
-- Keyhold that finds a migration it does not know names this version when it
-- refuses to start.
CREATE TABLE "keyhold_schema" (
	"id" boolean PRIMARY KEY DEFAULT true CHECK ("id"),
	"keyhold_version" text NOT NULL,
	"migration" text NOT NULL,
	"migrated_at" timestamp with time zone NOT NULL DEFAULT now()
);
