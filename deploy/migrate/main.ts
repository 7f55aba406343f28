/**
 * Applies every schema migration of one region's database (DATABASE_DIRECT_URL when set, which
 * bypasses a transaction pooler for the migrations' session advisory lock, else DATABASE_URL) and exits: the Helm
 * chart's pre-install/pre-upgrade Job runs it, so the schema is current before new pods roll out.
 * The apps apply the same migrations at boot under the same advisory locks, so this is safe to run
 * next to them. Prints one JSON object on stdout; exit 0 applied (or nothing pending), 1 failure.
 *
 *   node scripts/run-dist.js dist/deploy/migrate/main.js
 */
import { migrateRegion } from '@svc/region-stack';

async function main(): Promise<number> {
  const url = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('migrate: DATABASE_URL is required\n');
    return 1;
  }
  const applied = await migrateRegion(url);
  const count = Object.values(applied).reduce((total, names) => total + names.length, 0);
  process.stdout.write(`${JSON.stringify({ applied: count, bySchema: applied })}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // The message only: a driver error's detail may carry bind parameters.
    process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
