-- One-time codes sent by mail (store/email-codes.ts): a password reset's link,
-- an address's verification. Only an HMAC of the code is kept; a code is used
-- by one conditional update (used_at null and not expired), so of requests
-- racing with the same code exactly one wins. Not events: deleted once expired.
CREATE TABLE IF NOT EXISTS "email_codes" (
  "code_hash" text PRIMARY KEY NOT NULL,
  "purpose" text NOT NULL,
  "user_id" text NOT NULL,
  "email" text NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "used_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "email_codes_user_idx" ON "email_codes" ("user_id", "purpose");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "email_codes_expires_at_idx" ON "email_codes" ("expires_at");
