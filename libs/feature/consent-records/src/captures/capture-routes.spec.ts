import { serviceForPath } from '@svc/residency-router';

/** The capture paths reach consent-records through the region's router; session routes stay with the gateway. */
describe('capture routes in the route table', () => {
  it('routes authorize, the snippet, the consent field and capture creation to consent-records', () => {
    expect(serviceForPath('/api/v1/decisions/cap_us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/authorize')).toBe('consent-records');
    expect(serviceForPath('/capture/v1/snippet.js')).toBe('consent-records');
    expect(serviceForPath('/capture/v1/captures')).toBe('consent-records');
    expect(serviceForPath('/capture/v1/field.js')).toBe('consent-records');
    expect(serviceForPath('/capture/v1/fields/flw_us_aaaaaaaaaaaaaaaaaaaa')).toBe('consent-records');
    expect(serviceForPath('/api/v1/consent_records/imports/cimp_us_x')).toBe('consent-records');
  });

  it('leaves the decision session routes to decision-gateway', () => {
    expect(serviceForPath('/api/v1/decisions/dts_abc/exchange')).toBe('decision-gateway');
    expect(serviceForPath('/api/v1/decisions/dts_abc/authorize/extra')).toBe('decision-gateway');
  });
});
