-- Whether a user's address is verified (user.email.verified: by its code, an
-- administrator, or a provider trusted for it); another address clears it.
-- Existing users start unverified, as every address was until now.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "email_verified" boolean DEFAULT false NOT NULL;
