import { readFileSync } from 'node:fs';
import { regionOpenApiDocument } from '@svc/region-stack';
import { OPENAPI_DOCUMENT_PATH } from './document-path';
import { publishedOpenApiDocument } from './published-document';

describe('published OpenAPI document', () => {
  it('matches the controllers and DTOs (run `npm run openapi` and commit when this fails)', () => {
    const committed = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as unknown;
    expect(committed).toEqual(publishedOpenApiDocument());
  });

  it('documents request bodies from the validation DTOs, refusing unknown fields', () => {
    const document = regionOpenApiDocument() as {
      paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>;
      components: { schemas: Record<string, { additionalProperties?: boolean; required?: string[] }> };
    };
    const addOrigin = document.paths['/api/v1/applications/{application_id}/allowed_origins']?.post;
    expect(addOrigin?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/AddAllowedOriginBody' } } },
    });
    expect(document.components.schemas.AddAllowedOriginBody).toMatchObject({ additionalProperties: false, required: ['allowed_origin'] });
    expect(document.paths['/healthz']?.get?.security).toEqual([]);
    expect(document.paths['/api/v1/me']?.get?.security).toEqual([{ apiToken: [] }, { accessToken: [] }]);
  });

  it('resolves every $ref and gives every operation a unique id and a summary', () => {
    const document = regionOpenApiDocument() as {
      paths: Record<string, Record<string, { operationId: string; summary?: string }>>;
      components: Record<string, Record<string, unknown>>;
    };
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/([A-Za-z]+)\/([A-Za-z0-9_]+)"/g)];
    const broken = refs.filter(([, section, name]) => document.components[section!]?.[name!] === undefined).map(([ref]) => ref);
    expect(broken).toEqual([]);
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    expect(operations.filter((operation) => !operation.summary)).toEqual([]);
  });

  it('gives every success response with a body its media type and schema (204 and 304 carry none)', () => {
    const document = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    };
    const bare: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!/^2\d\d$/.test(status) || status === '204') continue;
          checked += 1;
          const media = Object.values(response.content ?? {});
          if (media.length === 0 || media.some((type) => type.schema === undefined)) bare.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(bare).toEqual([]);
  });
});
