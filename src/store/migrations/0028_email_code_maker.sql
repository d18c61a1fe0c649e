-- Who had a one-time code made for someone else (PasswordReset by an
-- administrator): at each use the maker must still be allowed to set the
-- user's password, or the code does nothing. Null: asked for at the login.
ALTER TABLE "email_codes" ADD COLUMN IF NOT EXISTS "created_by" text;
