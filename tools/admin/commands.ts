import { SystemClock, isRegion, type PlatformConfig, type Region } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import {
  ApplicationsRepository,
  CreateApplication,
  CreateApplicationCommand,
  DelegationGrantsService,
  DelegationsRepository,
  GATEWAY_SCHEMA,
  OAuthClientsRepository,
  RegisterOAuthClient,
  gatewayError,
  gatewayMigrations,
  type RegisterOAuthClientCommand,
} from '@svc/decision-gateway';
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

function listFlag(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

const AUTH_METHODS = ['client_secret_basic', 'private_key_jwt', 'none'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] as const;
const ID_TOKEN_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** Registers an OAuth client under an application; prints the client (and its secret, once). */
export async function createOAuthClient(flags: Readonly<Record<string, string>>): Promise<Record<string, unknown>> {
  const region = regionFlag(flags);
  for (const required of ['application', 'name', 'redirect-uris']) if (!flags[required]) throw new UsageError(`--${required} is required`);
  const keyEncryptionKey = configuredKeyEncryptionKey();
  if (!keyEncryptionKey) throw new UsageError('KEY_ENCRYPTION_KEY (or the local key file) is needed to store the client secret');
  const grantTypes = listFlag(flags['grant-types'])?.map((type) => oneOf('grant-types', type, GRANT_TYPES) as (typeof GRANT_TYPES)[number]);
  return withRegionDatabase(region, async (dataSource) => {
    await runMigrations(dataSource, gatewayMigrations);
    const application = await new ApplicationsRepository(dataSource).findApplication(flags.application ?? '');
    if (!application) throw gatewayError('application_not_found', 'Application not found', { application_id: flags.application });
    const command: RegisterOAuthClientCommand = {
      applicationId: application.id,
      environment: application.environment,
      region: application.region,
      name: flags.name ?? '',
      redirectUris: listFlag(flags['redirect-uris']) ?? [],
      postLogoutRedirectUris: listFlag(flags['post-logout-redirect-uris']),
      tokenEndpointAuthMethod: oneOf('auth', flags.auth, AUTH_METHODS),
      grantTypes,
      scopes: listFlag(flags.scopes),
      idTokenSignedResponseAlg: oneOf('id-token-alg', flags['id-token-alg'], ID_TOKEN_ALGS),
    };
    const { client, secret } = await new RegisterOAuthClient(
      new OAuthClientsRepository(dataSource, new KeyEncryption(keyEncryptionKey)),
    ).execute(command);
    return {
      client_id: client.clientId,
      application_id: client.applicationId,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      grant_types: client.grantTypes,
      scopes: client.scopes,
      ...(secret === null ? {} : { client_secret: secret }),
    };
  });
}

const EVIDENCED_TYPES = ['guardian', 'power_of_attorney'] as const;
const ACTIONS = ['read', 'write'] as const;

/**
 * An operator creates a guardian or power-of-attorney delegation grant on evidence they reviewed;
 * the delegate still accepts it with their own access token before acting.
 */
export async function createDelegationGrant(flags: Readonly<Record<string, string>>): Promise<Record<string, unknown>> {
  const region = regionFlag(flags);
  for (const required of ['type', 'application', 'principal', 'delegate', 'surfaces', 'actions', 'expires-at', 'evidence', 'reviewer'])
    if (!flags[required]) throw new UsageError(`--${required} is required`);
  const type = oneOf('type', flags.type, EVIDENCED_TYPES)!;
  const actions = (listFlag(flags.actions) ?? []).map((action) => oneOf('actions', action, ACTIONS)!);
  const surfaces = listFlag(flags.surfaces) ?? [];
  if (surfaces.some((surface) => !/^[a-z][a-z_]{0,39}$/.test(surface) || surface === 'delegations'))
    throw new UsageError('--surfaces must be API surface names (not delegations)');
  const expiresAt = new Date(flags['expires-at'] ?? '');
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now())
    throw new UsageError('--expires-at must be a future RFC 3339 date');
  return withRegionDatabase(region, async (dataSource) => {
    await runMigrations(dataSource, gatewayMigrations);
    const service = new DelegationGrantsService(
      new DelegationsRepository(dataSource),
      new OutboxWriter(GATEWAY_SCHEMA, region),
      new SystemClock(),
      { REGION: region } as PlatformConfig,
      null,
    );
    const grant = await service.offerOnEvidence({
      type,
      applicationId: flags.application ?? '',
      principalPersonId: flags.principal ?? '',
      delegatePersonId: flags.delegate ?? '',
      surfaces,
      actions,
      expiresAt,
      purpose: null,
      evidenceReference: flags.evidence ?? '',
      reviewedBy: flags.reviewer ?? '',
    });
    return {
      delegation_grant_id: grant.id,
      type: grant.type,
      status: grant.status,
      principal_person_id: grant.principalPersonId,
      delegate_person_id: grant.delegatePersonId,
      expires_at: grant.expiresAt.toISOString(),
    };
  });
}
