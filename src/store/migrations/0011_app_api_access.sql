-- Which apps may obtain tokens for Keyhold's own API (SetAppAPIAccess; the
-- projection of app.api.access.changed): none until an instance administrator
-- allows one. The console's app is allowed by an event at the next start unless
-- that was ever decided (src/server/bootstrap.ts ensureConsoleApp), not here:
-- the events stay the truth.
ALTER TABLE "apps" ADD COLUMN "api_access" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The API scope is granted on the consent page only: a stored grant that holds
-- it without having passed that page ends here, with its tokens, so a session
-- asks again instead of letting the scope through silently.
DELETE FROM "oidc_payloads" WHERE "grant_id" IN (
  SELECT "key" FROM "oidc_payloads"
  WHERE "model" = 'Grant' AND position(' urn:keyhold:iam:api:aud ' in ' ' || coalesce("payload"->'openid'->>'scope', '') || ' ') > 0
);--> statement-breakpoint
DELETE FROM "oidc_payloads"
WHERE "model" = 'Grant' AND position(' urn:keyhold:iam:api:aud ' in ' ' || coalesce("payload"->'openid'->>'scope', '') || ' ') > 0;
