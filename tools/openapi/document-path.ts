import { join } from 'node:path';

/** Where the published OpenAPI document lives: decision-gateway serves it at /.well-known/openapi. */
export const OPENAPI_DOCUMENT_PATH = join(__dirname, '..', '..', 'libs', 'feature', 'decision-gateway', 'src', 'discovery', 'openapi.json');
