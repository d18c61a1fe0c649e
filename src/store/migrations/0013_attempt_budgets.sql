CREATE TABLE "attempt_budgets" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone,
	"in_flight" integer DEFAULT 0 NOT NULL,
	"in_flight_until" timestamp with time zone,
	"epoch" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "attempt_budgets_expires_at_idx" ON "attempt_budgets" USING btree ("expires_at");
