import { serviceForPath } from '@svc/residency-router';

/** The platform's webhook and the management API reach consent-records through the region's router. */
describe('form integration routes in the route table', () => {
  it('routes the webhook and the management API to consent-records', () => {
    expect(serviceForPath('/capture/v1/form_integrations/fint_us_aaaaaaaaaaaaaaaaaaaa/webhook')).toBe('consent-records');
    expect(serviceForPath('/api/v1/consent_records/form_integrations')).toBe('consent-records');
    expect(serviceForPath('/api/v1/consent_records/form_integrations/fint_us_aaaaaaaaaaaaaaaaaaaa/intakes')).toBe('consent-records');
  });
});
