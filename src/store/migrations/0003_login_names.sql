-- Usernames become login names, unique across the instance. The key
-- column starts nullable, as in 0001: src/store/rekey-identifiers.ts keys the
-- existing rows in TypeScript right after the migrations (the oldest holder of a
-- name keeps it; a later one gets its key suffixed with U+001F and its id, so
-- it stays and logs in with the org scope), then sets NOT NULL as schema.ts says.
ALTER TABLE "users" ADD COLUMN "login_name_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "users_login_name_key" ON "users" USING btree ("login_name_key");
