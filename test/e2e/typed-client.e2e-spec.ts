import { createApiClient, type ApiClient } from '@svc/sdk-api-client';
import { createApp, type TestApp } from './oap-authorizer/support';
import { startRegions, type TestRegions } from './support/regions';

jest.setTimeout(120_000);

/**
 * Issue 19, Deliver 1: a client typed by the published OpenAPI document (openapi-typescript +
 * openapi-fetch) creates a flow, reads it back, lists it and activates it against a booted region,
 * and reads a refusal as the documented error envelope.
 */
describe('the typed client generated from the OpenAPI document', () => {
  let stack: TestRegions;
  let app: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startRegions('typed_client', { regions: ['us'] });
    app = await createApp(stack, 'typed-client');
    api = createApiClient({ baseUrl: stack.url.us, token: app.token });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('creates a flow and reads the same flow back through the typed paths', async () => {
    const created = await api.POST('/api/v1/flows', {
      body: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(created.response.status).toBe(201);
    const flow = created.data!;
    expect(flow).toMatchObject({ object: 'flow', application_id: app.id, status: 'draft', version: 1, flow_url: null });

    const read = await api.GET('/api/v1/flows/{flow_id}', { params: { path: { flow_id: flow.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(flow);

    const activated = await api.POST('/api/v1/flows/{flow_id}/activate', { params: { path: { flow_id: flow.id } } });
    expect(activated.data).toMatchObject({ id: flow.id, status: 'active', active_version: 1 });

    const page = await api.GET('/api/v1/flows', { params: { query: { limit: 10 } } });
    expect(page.data?.data.map((listed) => listed.id)).toContain(flow.id);
    expect(page.data?.has_more).toBe(false);
  });

  it('answers an unknown flow with the error envelope and its reason code', async () => {
    const missing = await api.GET('/api/v1/flows/{flow_id}', { params: { path: { flow_id: 'flw_us_00000000000000000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({ reason_code: expect.any(String), message: expect.any(String) });
  });
});
