export { createHttpApp, listen, type HttpAppOptions } from './create-http-app';
export { HttpErrorFilter, mapError, sendError, type MappedError } from './http-error-filter';
export { HealthController } from './health.controller';
export { OutboxRegistry } from './outbox-registry';
export { PlatformLifecycle, PlatformModule, type PlatformOptions } from './platform.module';
export { LOGGER } from './tokens';
export { strictValidationPipe } from './validation';
export { DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, encodeCursor, toPage, type Page } from './pagination';
export { runMain, startProcess, type FeatureDefinition, type ProcessOptions, type RunningProcess } from './start-process';
