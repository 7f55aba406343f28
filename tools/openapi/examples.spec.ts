import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { exampleOf } from './examples';
import { publishedOpenApiDocument } from './published-document';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
}

const document = publishedOpenApiDocument() as Json & {
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Record<string, Json>>;
  components: { schemas: Json; responses: Record<string, { content?: Record<string, Media> }> };
};
const BASE = 'https://api.example/openapi';

function validator(): (schema: Json, value: unknown) => string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: BASE, components: document.components });
  return (schema, value) => {
    const absolute = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${BASE}#/components/`)) as Json;
    const validate = ajv.compile(absolute);
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };
}

/** Every (where, media) pair of request and response bodies, of operations and webhooks. */
function bodies(): Array<{ where: string; media: Media }> {
  const found: Array<{ where: string; media: Media }> = [];
  const sections = { paths: document.paths, webhooks: document.webhooks };
  for (const [section, entries] of Object.entries(sections)) {
    for (const [path, methods] of Object.entries(entries)) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${section} ${method.toUpperCase()} ${path}`;
        for (const [type, media] of Object.entries(((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Media>))
          found.push({ where: `${where} request ${type}`, media });
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Media>))
            found.push({ where: `${where} ${status} ${type}`, media });
        }
      }
    }
  }
  for (const [name, response] of Object.entries(document.components.responses)) {
    for (const [type, media] of Object.entries(response.content ?? {}))
      found.push({ where: `components.responses.${name} ${type}`, media });
  }
  return found;
}

describe('examples of the published OpenAPI document', () => {
  it('gives every request and response body an example that its own schema accepts', () => {
    const check = validator();
    const all = bodies();
    expect(all.filter(({ media }) => media.example === undefined).map(({ where }) => where)).toEqual([]);
    const invalid = all.flatMap(({ where, media }) => {
      const error = media.schema ? check(media.schema, media.example) : undefined;
      return error ? [`${where}: ${error}`] : [];
    });
    expect(invalid).toEqual([]);
    expect(all.length).toBeGreaterThan(130);
  });

  it('writes ids that look like the identifiers a pattern describes, and prefers what the DTO gives', () => {
    const components = {};
    expect(exampleOf({ type: 'string', pattern: '^flw_(us|eu|ap|dev)_[a-z2-7]{20}$' }, components)).toMatch(/^flw_eu_[a-z2-7]{20}$/);
    expect(exampleOf({ type: 'string', examples: ['value_exceeds_per_action'] }, components)).toBe('value_exceeds_per_action');
    expect(
      exampleOf(
        {
          anyOf: [
            { type: 'string', format: 'date' },
            { type: 'string', format: 'date-time' },
          ],
        },
        components,
      ),
    ).toBe('2026-11-25T09:30:00.000Z');
    expect(exampleOf({ type: 'string', pattern: '\\S', minLength: 10 }, components, 'rationale')).toHaveLength(17);
  });

  it("shows the grant's 403 as its denial bodies (the cascade's, a hybrid application's policy engine's), not the plain envelope", () => {
    const denied = (document.paths['/api/v1/grants']!.post!.responses as Record<string, { content: Record<string, Media> }>)['403']!
      .content['application/json']!;
    expect(denied.schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/GrantDeniedResponse' }, { $ref: '#/components/schemas/GrantOversightDeniedResponse' }],
    });
    expect(denied.example).toMatchObject({
      decision: 'deny',
      denial_category: 'intent_denied',
      cascade_step: 7,
      reason_code: 'value_exceeds_per_action',
    });
  });

  it('describes every subscribable webhook event under webhooks', () => {
    expect(Object.keys(document.webhooks)).toEqual(
      expect.arrayContaining([
        'consent.granted',
        'consent.denied',
        'consent.revoked',
        'approval.granted',
        'flow.activated',
        'signature.signed',
        'webhook.delivery_failed',
        'webhook.test',
      ]),
    );
  });
});
