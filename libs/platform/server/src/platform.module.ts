import {
  Controller,
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, ModuleRef } from '@nestjs/core';
import {
  AccessTokenResolver,
  AccountAccessResolver,
  AttesterResolver,
  AuthGuard,
  CredentialResolver,
  CredentialRevocations,
  DelegationResolver,
  NoDelegationGrants,
  RpcCredentialResolver,
} from '@svc/auth';
import {
  BusConnection,
  BusRpcClient,
  BusRpcServer,
  EventFanout,
  JetStreamServer,
  RpcClient,
  busCredentialsFrom,
  ensureRegionStream,
} from '@svc/bus';
import { Clock, PlatformConfig, ProcessConfig, SystemClock } from '@svc/config';
import { PersonalDataSeal } from '@svc/contracts';
import { KeyEncryption } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import { IdempotencyStore, createDataSource, type SchemaMigrations } from '@svc/persistence';
import { BUSINESS_METRICS, Metrics, Readiness, createLogger, type Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import type { BootTeardown } from './boot-teardown';
import type { ProcessConfiguration } from './feature-definition';
import { HealthController } from './health.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { OutboxRegistry } from './outbox-registry';
import { MemoryAnswers } from './http-cache/memory-answers';
import { registerPlatformGauges } from './platform-gauges';
import { LOGGER } from './tokens';
import { migrateDatabase } from './migrate-database';

export interface PlatformOptions {
  /** The validated configuration of the process and of each of its features. */
  configuration: ProcessConfiguration;
  /** Schemas (with migrations) of the services composed in this process, applied at boot. */
  migrations: readonly SchemaMigrations[];
  /** Schemas whose outbox this process relays to the bus. */
  outboxSchemas: readonly string[];
  /** Overrides the wall clock (tests). */
  clock?: Clock;
  logger?: Logger;
  /** Receives the release of the database pool and the bus connection as soon as each is open. */
  teardown?: BootTeardown;
}

/**
 * Infrastructure shared by every service of a process: config, logger, metrics, readiness and, when
 * a feature of the process needs them, the region database (migrated at boot), the NATS bus with the
 * region stream, RPC and outbox relays. Boot fails when Postgres or NATS cannot be reached: a
 * service that needs them never starts without them.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    const { configuration } = options;
    const config = configuration.process;
    const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, region: config.REGION, level: config.LOG_LEVEL });
    // One provider per config class: the process's (ProcessConfig, and PlatformConfig when it has
    // infrastructure) and each feature's own, so a feature injects its typed variables.
    const configProviders = [
      ...configuration.configs.entries().map(([configClass, instance]) => ({ provide: configClass, useValue: instance })),
      { provide: ProcessConfig, useValue: config },
    ];
    const core = [
      ...configProviders,
      { provide: LOGGER, useValue: logger },
      { provide: Clock, useValue: options.clock ?? new SystemClock() },
      { provide: Metrics, useValue: new Metrics({ service: config.SERVICE_NAME, region: config.REGION }) },
      { provide: Readiness, useValue: new Readiness() },
      MemoryAnswers,
    ];
    const coreExports = [...new Set(configProviders.map((p) => p.provide)), LOGGER, Clock, Metrics, Readiness, MemoryAnswers];
    if (!configuration.infrastructure) {
      // A process that stores nothing and uses no bus (the residency router alone): no database,
      // no bus, no credentials to check; health and metrics only.
      return { module: PlatformModule, controllers: [HealthController], providers: core, exports: coreExports };
    }
    if (!(config instanceof PlatformConfig)) throw new Error('a process with infrastructure is configured with PlatformConfig');
    return {
      module: PlatformModule,
      controllers: [HealthController, SigningKeyRotations, CredentialRevocations],
      providers: [...core, { provide: 'PLATFORM_OPTIONS', useValue: options }, ...infrastructureProviders(config, logger, options)],
      exports: [
        ...coreExports,
        KeyEncryption,
        SigningKeyStore,
        IdempotencyStore,
        AccessTokenResolver,
        AccountAccessResolver,
        CredentialResolver,
        DelegationResolver,
        DataSource,
        BusConnection,
        BusRpcServer,
        BusRpcClient,
        RpcClient,
        JetStreamServer,
        OutboxRegistry,
      ],
    };
  }
}

/** The region database (migrated at boot), the bus with the region stream, RPC, outbox relays, signing keys and the auth guard. */
function infrastructureProviders(config: PlatformConfig, logger: Logger, options: PlatformOptions): Provider[] {
  return [
    {
      provide: DataSource,
      useFactory: async () => {
        const dataSource = createDataSource({
          url: config.DATABASE_URL,
          poolSize: config.DATABASE_POOL_SIZE,
          applicationName: `${config.SERVICE_NAME}-${config.REGION}`,
        });
        await dataSource.initialize();
        options.teardown?.add('postgres', () => (dataSource.isInitialized ? dataSource.destroy() : undefined));
        // Migrations hold a session advisory lock: behind a transaction pooler they run on a direct
        // connection of their own (DATABASE_DIRECT_URL), closed once they are applied.
        const direct = config.DATABASE_DIRECT_URL && config.DATABASE_DIRECT_URL !== config.DATABASE_URL;
        const migrator = direct
          ? createDataSource({
              url: config.DATABASE_DIRECT_URL as string,
              poolSize: 1,
              applicationName: `${config.SERVICE_NAME}-${config.REGION}-migrate`,
            })
          : dataSource;
        if (direct) await migrator.initialize();
        try {
          await migrateDatabase(migrator, options.migrations);
        } finally {
          if (direct) await migrator.destroy();
        }
        return dataSource;
      },
    },
    {
      provide: BusConnection,
      useFactory: async () => {
        const bus = await BusConnection.connect({
          url: config.NATS_URL,
          prefix: config.BUS_PREFIX,
          region: config.REGION,
          name: `${config.SERVICE_NAME}-${config.REGION}`,
          credentials: busCredentialsFrom(config),
          personalData: PersonalDataSeal.fromKeyEncryptionKey(config.KEY_ENCRYPTION_KEY, config.REGION),
        });
        options.teardown?.add('nats', () => bus.close());
        await ensureRegionStream(bus.jsm, bus.prefix, bus.region);
        return bus;
      },
    },
    // Request/reply on NestJS microservices: the server is the transport strategy the process
    // connects (startProcess); the client calls its handlers directly when they run in this process.
    { provide: BusRpcServer, useFactory: (bus: BusConnection) => new BusRpcServer(bus), inject: [BusConnection] },
    {
      provide: BusRpcClient,
      useFactory: (bus: BusConnection, server: BusRpcServer) => new BusRpcClient(bus, server),
      inject: [BusConnection, BusRpcServer],
    },
    {
      provide: RpcClient,
      useFactory: (client: BusRpcClient, bus: BusConnection) => new RpcClient(client, bus),
      inject: [BusRpcClient, BusConnection],
    },
    // Events on the JetStream transport strategy (`@EventConsumer` controllers), connected by startProcess.
    {
      provide: JetStreamServer,
      useFactory: (bus: BusConnection, modules: ModuleRef, metrics: Metrics) => {
        const deadLetters = metrics.counterOf(BUSINESS_METRICS.deadLetters);
        const server = new JetStreamServer(
          bus,
          { error: (message, context) => logger.error(context, message) },
          { deadLettered: (durable) => deadLetters.inc({ durable }) },
        );
        // Subscriptions decided at start (a feature's configuration switching a consumer on) read the process's providers.
        server.resolveWith((type) => modules.get(type, { strict: false }));
        return server;
      },
      inject: [BusConnection, ModuleRef, Metrics],
    },
    {
      provide: OutboxRegistry,
      useFactory: (dataSource: DataSource, bus: BusConnection) =>
        new OutboxRegistry(dataSource, bus, config.DATABASE_DIRECT_URL ?? config.DATABASE_URL, logger),
      inject: [DataSource, BusConnection],
    },
    { provide: KeyEncryption, useFactory: () => new KeyEncryption(config.KEY_ENCRYPTION_KEY) },
    {
      provide: SigningKeyStore,
      useFactory: (dataSource: DataSource, kek: KeyEncryption, clock: Clock) =>
        new SigningKeyStore(dataSource, config.REGION, kek, { clock }),
      inject: [DataSource, KeyEncryption, Clock],
    },
    PlatformLifecycle,
    {
      provide: CredentialResolver,
      useFactory: (rpc: RpcClient) => new RpcCredentialResolver(rpc, { staleIfErrorMs: config.CREDENTIAL_STALE_IF_ERROR_SECONDS * 1_000 }),
      inject: [RpcClient],
    },
    { provide: DelegationResolver, useClass: NoDelegationGrants },
    AttesterResolver,
    AccessTokenResolver,
    AccountAccessResolver,
    { provide: APP_GUARD, useClass: AuthGuard },
    // Idempotency-Key on every changing route of the authenticated API (after the guard: keys are per caller).
    {
      provide: IdempotencyStore,
      useFactory: (dataSource: DataSource, clock: Clock, kek: KeyEncryption) => new IdempotencyStore(dataSource, clock, kek),
      inject: [DataSource, Clock, KeyEncryption],
    },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ];
}

/**
 * Signing key rotations are rare and every holder of the key store must see them: a fan-out
 * listener (no durable) suffices, and the store's cache expiry covers a missed message.
 */
@Controller()
export class SigningKeyRotations {
  constructor(private readonly keys: SigningKeyStore) {}

  @EventFanout('keys.signing_key_rotated')
  async rotated(): Promise<void> {
    this.keys.reload();
  }
}

/** Starts relays once every module is initialised, and tears infrastructure down in reverse. */
@Injectable()
export class PlatformLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject('PLATFORM_OPTIONS') private readonly options: PlatformOptions,
    private readonly readiness: Readiness,
    private readonly dataSource: DataSource,
    private readonly bus: BusConnection,
    private readonly rpcServer: BusRpcServer,
    private readonly events: JetStreamServer,
    private readonly outboxes: OutboxRegistry,
    private readonly keys: SigningKeyStore,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.readiness.register({
      name: 'postgres',
      critical: true,
      check: async () => {
        await this.dataSource.query('SELECT 1');
        return { ok: true };
      },
    });
    this.readiness.register({ name: 'nats', critical: true, check: async () => ({ ok: await this.bus.isReachable() }) });
    await this.keys.ensureActiveKey();
    await this.outboxes.startAll(this.options.outboxSchemas);
    registerPlatformGauges(this.metrics, {
      dataSource: this.dataSource,
      bus: this.bus,
      clock: this.clock,
      outboxSchemas: this.options.outboxSchemas,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.outboxes.stopAll();
    // Nest closes its microservices before these hooks; closing again is harmless, and covers a
    // failed boot whose microservices never started. Consumers stop before the handlers they call.
    await this.events.close();
    this.rpcServer.release();
    await this.bus.close();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
