import { PASS, authority, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { JurisdictionBounds } from '../../authorities/bounds';
import type { GrantRequest } from './cascade-step';
import { step11Purpose } from './step-11-purpose';

const verdict = (overrides: Partial<GrantRequest>, purposes: string[] = ['research', 'shopping'], jurisdiction?: JurisdictionBounds) => {
  const bounds = jurisdiction ? { jurisdiction_bounds: jurisdiction } : {};
  return run(step11Purpose, context(bounds, { authority: authority(bounds, { purposes }), request: request(overrides) }));
};

describe('step 11 — purpose of use compatible', () => {
  it('passes a request declaring neither purpose nor jurisdiction, whatever the authority declares', () => {
    expect(verdict({}, [])).toEqual(PASS);
  });

  it('passes a purpose that is any of the authority purposes', () => {
    expect(verdict({ purpose: 'shopping' })).toEqual(PASS);
    expect(verdict({ purpose: 'research' })).toEqual(PASS);
  });

  it('denies a purpose the authority does not list', () => {
    expect(verdict({ purpose: 'gambling' })).toEqual(denied('purpose_incompatible', 'The purpose is not one the authority allows'));
  });

  it('denies any purpose when the authority declares none', () => {
    expect(verdict({ purpose: 'shopping' }, [])).toEqual(denied('purpose_not_declared', 'The authority declares no purpose of use'));
  });

  it('reads the agent metadata delegation_purpose when the request names no purpose, and the request purpose first', () => {
    expect(verdict({ metadata: { delegation_purpose: 'gambling' } })).toMatchObject({ reason: 'purpose_incompatible' });
    expect(verdict({ metadata: { delegation_purpose: 'research' } })).toEqual(PASS);
    expect(verdict({ purpose: 'shopping', metadata: { delegation_purpose: 'gambling' } })).toEqual(PASS);
  });

  describe('jurisdiction', () => {
    it('denies a jurisdiction when the authority configures no jurisdiction bounds', () => {
      expect(verdict({ jurisdiction: 'FR' })).toEqual(
        denied('jurisdiction_bounds_not_configured', 'The authority configures no jurisdiction bounds'),
      );
    });
    it('passes any listed jurisdiction and denies others', () => {
      const bounds = { allowed: ['FR', 'DE'] };
      expect(verdict({ jurisdiction: 'DE' }, undefined, bounds)).toEqual(PASS);
      expect(verdict({ jurisdiction: 'FR' }, undefined, bounds)).toEqual(PASS);
      expect(verdict({ jurisdiction: 'US' }, undefined, bounds)).toEqual(
        denied('jurisdiction_not_allowed', 'Jurisdiction US is not allowed'),
      );
    });
    it('denies every jurisdiction when the allowed list is absent and not unrestricted', () => {
      expect(verdict({ jurisdiction: 'FR' }, undefined, {})).toMatchObject({ reason: 'jurisdiction_not_allowed' });
    });
    it('passes any jurisdiction when unrestricted', () => {
      expect(verdict({ jurisdiction: 'US' }, undefined, { unrestricted: true })).toEqual(PASS);
    });
  });
});
