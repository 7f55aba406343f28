import { RESERVED_FOR_TOOLS, connectionCeiling, poolSizes } from './connection-budget';
import { instancesPerService, selectedRegions } from './stack-options';

const SERVICES = [
  'decision-gateway',
  'consent-records',
  'oap-authorizer',
  'webhook-dispatcher',
  'audit-chain',
  'receipts',
  'oversight-witness',
];

describe('the local stack options (SVC_INSTANCES, SVC_REGIONS)', () => {
  it('runs one instance of every service unless SVC_INSTANCES says otherwise, from 1 to 9', () => {
    expect(instancesPerService({})).toBe(1);
    expect(instancesPerService({ SVC_INSTANCES: '' })).toBe(1);
    expect(instancesPerService({ SVC_INSTANCES: '2' })).toBe(2);
    for (const bad of ['0', '10', 'two', '-1', '1.5'])
      expect(() => instancesPerService({ SVC_INSTANCES: bad })).toThrow('SVC_INSTANCES must be a whole number from 1 to 9');
  });

  it('starts every region unless SVC_REGIONS names some, in the usual order', () => {
    expect(selectedRegions({})).toEqual(['us', 'eu', 'ap']);
    expect(selectedRegions({ SVC_REGIONS: 'us' })).toEqual(['us']);
    expect(selectedRegions({ SVC_REGIONS: 'ap, us' })).toEqual(['us', 'ap']);
    expect(() => selectedRegions({ SVC_REGIONS: 'us,mars' })).toThrow(
      'SVC_REGIONS must name regions among us, eu, ap, separated by commas (got "mars")',
    );
  });

  it('fits two instances of the seven services of one region in the distributed budget of 60, pools of 3 or 4', () => {
    const processes = SERVICES.flatMap((service) => [`${service}-1`, `${service}-2`]);
    const pools = poolSizes(60, 1, processes);
    expect(Object.keys(pools)).toHaveLength(14);
    expect(new Set(Object.values(pools))).toEqual(new Set([3, 4]));
    expect(connectionCeiling(pools, 1) + RESERVED_FOR_TOOLS).toBe(60);
  });

  it('refuses two instances of every service in three regions within 60: each needs a listener and a pooled connection', () => {
    const processes = SERVICES.flatMap((service) => [`${service}-1`, `${service}-2`]);
    expect(() => poolSizes(60, 3, processes)).toThrow('need at least 87');
  });
});
