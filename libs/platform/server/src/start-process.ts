import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BusRpcServer, JetStreamServer } from '@svc/bus';
import { ConfigError, type Clock, type Environment } from '@svc/config';
import { startTracing, type Logger } from '@svc/telemetry';
import { BootTeardown } from './boot-teardown';
import { createHttpApp, listen } from './create-http-app';
import { loadProcessConfiguration, type FeatureDefinition } from './feature-definition';
import { PlatformModule } from './platform.module';

export interface ProcessOptions {
  features: readonly FeatureDefinition[];
  /** The process's environment variables; every feature's are read from it. */
  env: Environment;
  clock?: Clock;
  logger?: Logger;
  /** False leaves request bodies unparsed, for a proxying ingress. */
  bodyParser?: boolean;
}

export interface RunningProcess {
  app: NestFastifyApplication;
  url: string;
  close(): Promise<void>;
}

/**
 * Boots one process: a single service (distributed mode) or every service of a region
 * (monolithic mode). Same modules, same bus, same database either way.
 */
export async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  const configuration = loadProcessConfiguration(options.features, options.env);
  const config = configuration.process;
  const stopTracing = await startTracing({ serviceName: config.SERVICE_NAME, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const teardown = new BootTeardown();

  @Module({
    imports: [
      PlatformModule.forRoot({
        configuration,
        clock: options.clock,
        logger: options.logger,
        migrations: options.features.flatMap((f) => f.migrations),
        outboxSchemas: [...new Set(options.features.flatMap((f) => f.outboxSchemas))],
        teardown,
      }),
      ...options.features.map((f) => f.module),
    ],
  })
  class ProcessRootModule {}

  let app: NestFastifyApplication | undefined;
  try {
    app = await createHttpApp(ProcessRootModule, {
      bodyParser: options.bodyParser,
      configureFastify: async (fastify) => {
        for (const feature of options.features) await feature.configureFastify?.(fastify, configuration.configs.get(feature.config));
      },
    });
    if (configuration.infrastructure) {
      // Request/reply handlers (`@RpcHandler` controllers) on the NATS transport strategy, over the
      // process's bus connection; in-process callers reach them without crossing NATS.
      // Remote requests are taken once every module is initialised (as the HTTP port is).
      app.connectMicroservice({ strategy: app.get(BusRpcServer) });
      // Event consumers (`@EventConsumer` controllers): each opens its durable on the JetStream
      // transport strategy once every module is initialised, and stops before the bus is closed.
      app.connectMicroservice({ strategy: app.get(JetStreamServer) });
      await app.init();
      await app.startAllMicroservices();
    }
    const url = await listen(app, config);
    const running = app;
    return {
      app: running,
      url,
      close: async () => {
        await running.close();
        await stopTracing();
      },
    };
  } catch (error) {
    // A failed boot releases whatever it reached: the application's shutdown hooks stop the
    // loops, relays and consumers that started; the teardown closes pools and connections opened
    // before the application existed (or that a failed hook left open).
    await app?.close().catch(() => undefined);
    await teardown.run();
    await stopTracing().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs a process's main: a configuration error prints the variables at fault and exits 1; any
 * other boot failure (Postgres or NATS unreachable) is logged and exits 1. SIGINT/SIGTERM close
 * the app gracefully.
 */
export function runMain(main: () => Promise<RunningProcess>): void {
  main().then(
    (running) => {
      let closing = false;
      const shutdown = (): void => {
        if (closing) return;
        closing = true;
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
      } else {
        process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
      process.exit(1);
    },
  );
}
