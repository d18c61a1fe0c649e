-- Names are compared by keys Keyhold computes (src/domain/identity/identifiers.ts),
-- not by lower() under the database's locale. The key columns start nullable:
-- SQL cannot compute Keyhold's keys, so src/store/rekey-identifiers.ts keys the
-- existing rows in TypeScript right after this migration, at start and under the
-- migration lock, then sets NOT NULL (as schema.ts declares). NULLs never collide
-- in a unique index, so the new indexes can be built before the keys exist.
DROP INDEX "apps_project_name_key";--> statement-breakpoint
DROP INDEX "users_org_username_key";--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "name_key" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "username_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "apps_project_name_key" ON "apps" USING btree ("project_id","name_key");--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_username_key" ON "users" USING btree ("org_id","username_key");
