CREATE TABLE "oidc_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"use" text NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" jsonb,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"active_from" timestamp with time zone NOT NULL,
	"retire_at" timestamp with time zone,
	CONSTRAINT "oidc_keys_use_check" CHECK ("oidc_keys"."use" in ('sig', 'cookie'))
);
--> statement-breakpoint
CREATE TABLE "oidc_payloads" (
	"model" text NOT NULL,
	"key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "oidc_payloads_pkey" PRIMARY KEY("model","key")
);
--> statement-breakpoint
CREATE INDEX "oidc_payloads_grant_id_idx" ON "oidc_payloads" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oidc_payloads_uid_idx" ON "oidc_payloads" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "oidc_payloads_expires_at_idx" ON "oidc_payloads" USING btree ("expires_at");