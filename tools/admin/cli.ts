/**
 * Admin CLI for bootstrapping a region, usable by scripts: every command prints one JSON object
 * on stdout; errors go to stderr with a non-zero exit code (2 usage, 1 failure).
 *
 *   npm run admin -- create-application --region us --name demo --environment development [--mode conductor]
 *   npm run admin -- rotate-keys --region us
 */
import { SystemClock, isRegion, type PlatformConfig, type Region } from '@svc/config';
import { ApplicationsRepository, CreateApplication, CreateApplicationCommand, GATEWAY_SCHEMA, gatewayMigrations } from '@svc/decision-gateway';
import { DomainError } from '@svc/errors';
import { OutboxWriter, createDataSource, ensureDatabase, runMigrations } from '@svc/persistence';
import { configuredKeyEncryptionKey, regionDatabaseUrl } from '@svc/region-stack';
import type { DataSource } from 'typeorm';
import { RotationRefused, missingKeyEncryptionKeyMessage, rotateKeys } from './rotate-keys';

class UsageError extends Error {}

const USAGE = `usage:
  admin create-application --region <us|eu|ap> --name <name> --environment <development|production> [--mode <conductor|oversight|hybrid>]
  admin rotate-keys --region <us|eu|ap>`;

function parseFlags(args: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i];
    const value = args[i + 1];
    if (!name?.startsWith('--') || value === undefined || value.startsWith('--')) throw new UsageError(`expected --flag value, got "${name ?? ''}"`);
    flags[name.slice(2)] = value;
  }
  return flags;
}

function regionFlag(flags: Record<string, string>): Region {
  const region = flags.region;
  if (!isRegion(region)) throw new UsageError('--region must be us, eu or ap');
  return region;
}

async function withRegionDatabase<T>(region: Region, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const url = regionDatabaseUrl(region);
  await ensureDatabase(url);
  const dataSource = createDataSource({ url, poolSize: 2, applicationName: 'admin-cli' });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function createApplication(flags: Record<string, string>): Promise<Record<string, unknown>> {
  const region = regionFlag(flags);
  const command = CreateApplicationCommand.create({ name: flags.name, environment: flags.environment, mode: flags.mode });
  return withRegionDatabase(region, async (dataSource) => {
    await runMigrations(dataSource, gatewayMigrations);
    const useCase = new CreateApplication(
      new ApplicationsRepository(dataSource),
      new OutboxWriter(GATEWAY_SCHEMA, region),
      new SystemClock(),
      { REGION: region } as PlatformConfig,
    );
    const created = await useCase.execute(command);
    return { application_id: created.application.id, api_token: created.apiToken, publishable_key: created.publishableKey };
  });
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  const flags = parseFlags(rest);
  let result: Record<string, unknown>;
  switch (command) {
    case 'create-application':
      result = await createApplication(flags);
      break;
    case 'rotate-keys': {
      const region = regionFlag(flags);
      const keyEncryptionKey = configuredKeyEncryptionKey();
      // Checked before touching the database, which must not even be created for a refused rotation.
      if (!keyEncryptionKey) throw new RotationRefused(missingKeyEncryptionKeyMessage());
      result = await withRegionDatabase(region, (dataSource) => rotateKeys(dataSource, region, keyEncryptionKey));
      break;
    }
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    const message = error instanceof DomainError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`admin: ${message}\n`);
    process.exit(1);
  },
);
