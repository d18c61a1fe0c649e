// drizzle-kit reads this to generate SQL migrations from the one pg-core schema.
// `npm run db:generate` (drizzle-kit generate) writes them to src/store/migrations,
// which is committed and applied at start by src/store/database.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema.ts',
  out: './src/store/migrations',
});
