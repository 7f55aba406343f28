export { ALL_FEATURES } from './features';
export { startRegion } from './start-region';
export {
  LOCAL_DATABASE_URL_TEMPLATE_FILE,
  LOCAL_KEY_ENCRYPTION_KEY_FILE,
  LOCAL_STATE_DIR,
  configuredKeyEncryptionKey,
  localKeyEncryptionKey,
  regionDatabaseUrl,
  regionEnvironment,
  routerPort,
} from './local-environment';
export { regionOpenApiDocument } from './openapi';
export { startMailDev, type MailDev } from './local-mail';
export { migrateRegion, regionMigrationFingerprint, regionMigrationSets } from './migrate-region';
