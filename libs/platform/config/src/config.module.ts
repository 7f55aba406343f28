import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import { loadConfig } from './load-config';
import { PlatformConfig } from './platform-config';

/** Registers a validated config instance under its own class and under PlatformConfig. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot<T extends PlatformConfig>(configClass: ClassConstructor<T>, instance?: T): DynamicModule {
    const config = instance ?? loadConfig(configClass);
    const providers = [{ provide: configClass, useValue: config }];
    if ((configClass as unknown) !== PlatformConfig) providers.push({ provide: PlatformConfig as ClassConstructor<T>, useValue: config });
    return { module: ConfigModule, providers, exports: providers.map((p) => p.provide) };
  }
}
