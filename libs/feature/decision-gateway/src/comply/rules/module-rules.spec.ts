import { jurisdictionOf, moduleRules, type ComplianceModule } from '../regimes';
import { checkFlowAgainstModules } from './check-flow';
import { durationDays } from './duration';
import type { FlowTermsUnderCheck } from './rule';

const compliant: FlowTermsUnderCheck = {
  purposes: [
    { key: 'newsletter', mechanism: 'consent', required: false },
    { key: 'billing', mechanism: 'contract', required: true },
  ],
  data_fields: [{ key: 'age_confirmation', required: true }],
  retention_period: 'P1Y',
  revocation_policy: 'any_time',
  requirements: [],
};

const mod = (regime: ComplianceModule['regime'], settings = {}, enabled = true): ComplianceModule => ({
  regime,
  enabled,
  rules: moduleRules(regime, settings),
  updatedAt: null,
});

describe('module rules checked when a flow is activated (issue 18, Comply: modules)', () => {
  it('a compliant flow passes every regime', () => {
    const all = (['gdpr', 'uk_gdpr', 'ccpa_cpra', 'lgpd', 'pipl'] as const).map((regime) => mod(regime));
    expect(checkFlowAgainstModules(compliant, all)).toEqual([]);
  });

  it('no enabled module: nothing is checked', () => {
    expect(
      checkFlowAgainstModules({ ...compliant, revocation_policy: 'contact_controller', retention_period: null }, [mod('gdpr', {}, false)]),
    ).toEqual([]);
  });

  describe('withdrawal_parity: withdrawal as easy as consent', () => {
    it('refuses contact_controller for a consent purpose, naming revocation_policy and the article', () => {
      expect(checkFlowAgainstModules({ ...compliant, revocation_policy: 'contact_controller' }, [mod('gdpr')])).toEqual([
        expect.objectContaining({ regime: 'gdpr', rule: 'withdrawal_parity', field: 'revocation_policy', citation: 'GDPR Art. 7(3)' }),
      ]);
    });

    it('does not apply to a flow without a consent purpose', () => {
      const contractOnly = {
        ...compliant,
        purposes: [{ key: 'billing', mechanism: 'contract', required: true }],
        revocation_policy: 'contact_controller',
      };
      expect(checkFlowAgainstModules(contractOnly, [mod('gdpr')]).filter((v) => v.rule === 'withdrawal_parity')).toEqual([]);
    });
  });

  describe('minimum_age', () => {
    it('refuses a consent flow that never establishes age, naming data_fields and the age', () => {
      const [violation] = checkFlowAgainstModules({ ...compliant, data_fields: [] }, [mod('gdpr', { minimum_age: 15 })]);
      expect(violation).toMatchObject({ rule: 'minimum_age', field: 'data_fields', citation: 'GDPR Art. 8(1)' });
      expect(violation?.message).toContain('15');
    });

    it('an optional age field is not enough; a required date_of_birth or identity verification is', () => {
      expect(
        checkFlowAgainstModules({ ...compliant, data_fields: [{ key: 'date_of_birth', required: false }] }, [mod('pipl')]),
      ).toHaveLength(1);
      expect(checkFlowAgainstModules({ ...compliant, data_fields: [{ key: 'date_of_birth', required: true }] }, [mod('pipl')])).toEqual([]);
      expect(checkFlowAgainstModules({ ...compliant, data_fields: [], requirements: ['identity_verification'] }, [mod('pipl')])).toEqual(
        [],
      );
    });
  });

  describe('retention_ceiling', () => {
    it('refuses an undeclared retention period', () => {
      expect(checkFlowAgainstModules({ ...compliant, retention_period: null }, [mod('lgpd')])).toEqual([
        expect.objectContaining({ rule: 'retention_ceiling', field: 'retention_period' }),
      ]);
    });

    it('refuses a period beyond the ceiling and accepts one at it', () => {
      expect(checkFlowAgainstModules({ ...compliant, retention_period: 'P13M' }, [mod('pipl')])).toEqual([
        expect.objectContaining({ regime: 'pipl', rule: 'retention_ceiling' }),
      ]);
      expect(checkFlowAgainstModules({ ...compliant, retention_period: 'P12M' }, [mod('pipl', { retention_ceiling: 'P360D' })])).toEqual(
        [],
      );
      expect(checkFlowAgainstModules({ ...compliant, retention_period: 'P6M' }, [mod('gdpr', { retention_ceiling: 'P90D' })])).toHaveLength(
        1,
      );
    });

    it('counts durations conservatively in days', () => {
      expect(durationDays('P1Y')).toBe(365);
      expect(durationDays('P2M1W')).toBe(67);
      expect(durationDays('PT36H')).toBe(1.5);
      expect(durationDays('1Y')).toBeUndefined();
    });
  });

  describe('sensitive_purposes', () => {
    it('refuses a sensitive purpose on another lawful basis, naming its mechanism field', () => {
      const terms = {
        ...compliant,
        purposes: [...compliant.purposes, { key: 'health', mechanism: 'legitimate_interest', required: false }],
      };
      expect(checkFlowAgainstModules(terms, [mod('gdpr')])).toEqual([
        expect.objectContaining({ rule: 'sensitive_purposes', field: 'purposes[2].mechanism', citation: 'GDPR Art. 9(2)(a)' }),
      ]);
    });

    it('refuses a bundled (required) sensitive consent', () => {
      const terms = { ...compliant, purposes: [{ key: 'precise_geolocation', mechanism: 'consent', required: true }] };
      expect(checkFlowAgainstModules(terms, [mod('ccpa_cpra')])).toEqual([
        expect.objectContaining({ rule: 'sensitive_purposes', field: 'purposes[0].required' }),
      ]);
      // Not sensitive under GDPR's list unless the application adds it.
      expect(checkFlowAgainstModules(terms, [mod('gdpr')])).toEqual([]);
      expect(checkFlowAgainstModules(terms, [mod('gdpr', { sensitive_purposes: ['precise_geolocation'] })])).toHaveLength(1);
    });
  });

  it('every enabled regime reports its own violation', () => {
    const violations = checkFlowAgainstModules({ ...compliant, revocation_policy: 'contact_controller' }, [
      mod('gdpr'),
      mod('uk_gdpr'),
      mod('lgpd', {}, false),
    ]);
    expect(violations.map((v) => v.regime)).toEqual(['gdpr', 'uk_gdpr']);
  });
});

describe('receipt jurisdiction from enabled modules (issue 18, item 8)', () => {
  it('states the one enabled regime, the home one of several, else unspecified', () => {
    expect(jurisdictionOf([], 'DE')).toBe('unspecified');
    expect(jurisdictionOf(['lgpd'], 'US')).toBe('BR');
    expect(jurisdictionOf(['gdpr', 'uk_gdpr'], 'DE')).toBe('EU');
    expect(jurisdictionOf(['gdpr', 'ccpa_cpra'], 'US')).toBe('unspecified');
  });
});
