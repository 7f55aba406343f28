import { SystemClock, isRegion, type PlatformConfig, type Region } from '@svc/config';
import { ApplicationsRepository, CreateApplication, CreateApplicationCommand, GATEWAY_SCHEMA, gatewayMigrations } from '@svc/decision-gateway';
import { DomainError } from '@svc/errors';
import { OutboxWriter, createDataSource, ensureDatabase, runMigrations } from '@svc/persistence';
import { configuredKeyEncryptionKey, regionDatabaseUrl } from '@svc/region-stack';
import type { DataSource } from 'typeorm';
import { RotationRefused, missingKeyEncryptionKeyMessage, rotateKeys } from './rotate-keys';

/** A wrong invocation (exit 2 with the usage), as opposed to a failed command (exit 1). */
export class UsageError extends Error {}

/** `code: message` for a domain error, the message otherwise. */
export function describeFailure(error: unknown): string {
  return error instanceof DomainError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

function regionFlag(flags: Readonly<Record<string, string>>): Region {
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

export async function createApplication(flags: Readonly<Record<string, string>>): Promise<Record<string, unknown>> {
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

export async function rotateRegionKeys(flags: Readonly<Record<string, string>>): Promise<Record<string, unknown>> {
  const region = regionFlag(flags);
  const keyEncryptionKey = configuredKeyEncryptionKey();
  // Checked before touching the database, which must not even be created for a refused rotation.
  if (!keyEncryptionKey) throw new RotationRefused(missingKeyEncryptionKeyMessage());
  return withRegionDatabase(region, (dataSource) => rotateKeys(dataSource, region, keyEncryptionKey));
}
