export { createHttpApp, listen, type HttpAppOptions } from './create-http-app';
export { HttpErrorFilter, mapError, payloadTooLarge, sendError, type MappedError } from './http-error-filter';
export { HealthController } from './health.controller';
export { clientAddress } from './client-address';
export { OutboxRegistry } from './outbox-registry';
export { PlatformLifecycle, PlatformModule, type PlatformOptions } from './platform.module';
export { LOGGER } from './tokens';
export { strictValidationPipe } from './validation';
export { HomeRegionPipe } from './home-region.pipe';
export { Nullable } from './nullable';
export { FORM_BODY_ROUTE, STREAMED_BODY_ROUTE, StreamedRequestBody, type StreamedBody } from './body/body-parsers';
export { DEFAULT_JSON_LIMITS, JsonShapeGuard } from './body/json-limits';
export { refuseUnsafeJsonValue } from './body/parse-json-body';
export { DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, encodeCursor, toPage, type Page } from './pagination';
export { migrateDatabase, processMigrationSets } from './migrate-database';
export { runMain, startProcess, type ProcessOptions, type RunningProcess } from './start-process';
export { loadProcessConfiguration, type FeatureDefinition, type ProcessConfiguration } from './feature-definition';
export { buildOpenApiDocument, type DocumentedWebhook } from './openapi/build-openapi';
export { protoMessageSchemas, protoSchemaName } from './openapi/proto-schema';
export {
  API_DOC,
  API_RESPONSE_OF,
  ApiDoc,
  ApiResponseOf,
  type ApiDocOptions,
  type ApiResponseOfOptions,
  type DocumentedRequestHeader,
} from './openapi/api-doc.decorator';
export { RAW_BODY_ROUTE, rawBodyOf } from './raw-body';
export {
  DocumentCache,
  cachedDocumentOf,
  ifNoneMatches,
  type CachedDocument,
  type DocumentCacheOptions,
} from './http-cache/document-cache';
export {
  MEMORY_ANSWERS_METRIC,
  MemoryAnswers,
  sendMemoryAnswer,
  type MemoryAnswer,
  type MemoryAnswerSource,
} from './http-cache/memory-answers';
export { IdParam, IdPipe } from './id-param';
export {
  IDEMPOTENCY_POLICY,
  IDEMPOTENT_PATH_PREFIX,
  IdempotencyExempt,
  OwnIdempotency,
  idempotencyModeOf,
  type IdempotencyDeclaration,
  type IdempotencyMode,
} from './idempotency/idempotency-policy';
export {
  IdempotencyInterceptor,
  claimStreamedBody,
  idempotencyCallerOf,
  requestFingerprint,
  settleIdempotentAnswer,
  type StreamedBodyClaim,
} from './idempotency/idempotency.interceptor';
