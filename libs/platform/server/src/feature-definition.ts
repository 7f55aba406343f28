import type { DynamicModule, Type } from '@nestjs/common';
import { PlatformConfig, ProcessConfig, loadConfigs, type Environment, type LoadedConfigs } from '@svc/config';
import type { SchemaMigrations } from '@svc/persistence';
import type { ClassConstructor } from 'class-transformer';
import type { FastifyInstance } from 'fastify';

/** What a feature library contributes to a process: its module, config, schemas and HTTP hooks. */
export interface FeatureDefinition<C extends ProcessConfig = ProcessConfig> {
  name: string;
  module: Type<unknown> | DynamicModule;
  /**
   * The variables the feature reads: a class-validator class, validated with every other feature's
   * in one pass before Nest starts, and injectable under its own class. `PlatformConfig` (or a
   * class extending it) when the feature keeps data or uses the bus — the process then opens the
   * region database and connects to NATS; `ProcessConfig` (or a class extending it) when it does neither.
   */
  config: ClassConstructor<C>;
  migrations: readonly SchemaMigrations[];
  /** Schemas whose outbox this feature writes to; their relays run in the process. */
  outboxSchemas: readonly string[];
  /** Hooks on Fastify before routes are registered; given the feature's own validated config. */
  configureFastify?(fastify: FastifyInstance, config: C): void | Promise<void>;
}

/** True when a config class is, or extends, {@link PlatformConfig}: its feature needs the database and the bus. */
function needsInfrastructure(configClass: ClassConstructor<object>): boolean {
  return configClass === PlatformConfig || configClass.prototype instanceof PlatformConfig;
}

/** What one process reads from its environment, validated in one pass that names every bad variable. */
export interface ProcessConfiguration {
  /** The process's own config: `PlatformConfig` when a feature needs the database and bus, else `ProcessConfig`. */
  process: ProcessConfig;
  /** Whether the process opens the region database and connects to the bus. */
  infrastructure: boolean;
  /** Every loaded config class (the process's and each feature's), each under its class. */
  configs: LoadedConfigs;
}

/**
 * Validates the variables of a process and of every feature it runs, all at once: a `ConfigError`
 * names every bad variable of every feature. A process needs only the variables of what it runs.
 */
export function loadProcessConfiguration(features: readonly FeatureDefinition[], env: Environment): ProcessConfiguration {
  const infrastructure = features.some((f) => needsInfrastructure(f.config));
  const processClass = infrastructure ? PlatformConfig : ProcessConfig;
  const configs = loadConfigs([processClass, ...features.map((f) => f.config)], env);
  return { process: configs.get<ProcessConfig>(processClass), infrastructure, configs };
}
