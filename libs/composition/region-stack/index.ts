export { ALL_FEATURES } from './features';
export { startRegion } from './start-region';
export { LOCAL_STATE_DIR, localKeyEncryptionKey, regionDatabaseUrl, regionEnvironment, routerPort } from './local-environment';
export { regionOpenApiDocument } from './openapi';
