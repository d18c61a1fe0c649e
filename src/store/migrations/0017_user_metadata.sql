-- A user's metadata (SetUserMetadata): one row per key, the value base64 as in
-- its event. Bounded by the decider (64 keys of 1 to 200 characters, values
-- of 1 to 2048 bytes); a removed user's rows go with it.
CREATE TABLE IF NOT EXISTS "user_metadata" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"org_id" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "user_metadata_pkey" PRIMARY KEY ("user_id", "key")
);
