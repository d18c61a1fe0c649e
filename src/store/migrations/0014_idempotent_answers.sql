CREATE TABLE "idempotent_answers" (
	"key" text PRIMARY KEY NOT NULL,
	"request_digest" text NOT NULL,
	"owner" text NOT NULL,
	"sealed_answer" text,
	"running_until" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "idempotent_answers_expires_at_idx" ON "idempotent_answers" USING btree ("expires_at");
