/**
 * Regenerates the published OpenAPI document from the controllers and DTOs:
 * `npm run openapi`. CI fails when the committed document differs from a fresh one.
 */
import { writeFileSync } from 'node:fs';
import { OPENAPI_DOCUMENT_PATH } from './document-path';
import { publishedOpenApiDocument } from './published-document';

writeFileSync(OPENAPI_DOCUMENT_PATH, `${JSON.stringify(publishedOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${OPENAPI_DOCUMENT_PATH}\n`);
