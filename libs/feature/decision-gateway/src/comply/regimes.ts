/**
 * The privacy regimes an application can enable (the Comply surface's modules) and what each
 * enforces by default. The values are the statutory floors a DPO would configure first; an
 * application may tighten them (a higher minimum age, a shorter retention ceiling, more sensitive
 * purposes), never loosen them below the regime's floor.
 */
export const REGIMES = ['gdpr', 'uk_gdpr', 'ccpa_cpra', 'lgpd', 'pipl'] as const;
export type Regime = (typeof REGIMES)[number];

/** Special categories every regime treats as sensitive (GDPR Art. 9 and its peers), as purpose keys. */
const SPECIAL_CATEGORIES = [
  'health',
  'biometric',
  'genetic',
  'racial_or_ethnic_origin',
  'political_opinions',
  'religious_beliefs',
  'trade_union_membership',
  'sex_life',
  'sexual_orientation',
] as const;

export interface RegimeDefinition {
  readonly regime: Regime;
  readonly name: string;
  /** The receipt's `jurisdiction` when this regime governs (ISO 3166-1, a subdivision, or EU). */
  readonly jurisdiction: string;
  /** The law's own text for each rule, cited in refusals. */
  readonly citations: {
    readonly withdrawal_parity: string;
    readonly minimum_age: string;
    readonly retention_ceiling: string;
    readonly sensitive_purposes: string;
  };
  /** Age below which a person's own consent does not count (parental consent needed). */
  readonly minimumAgeFloor: number;
  readonly defaultMinimumAge: number;
  /** Default retention ceiling (ISO 8601 duration). */
  readonly defaultRetentionCeiling: string;
  /** Purpose keys the regime treats as sensitive. */
  readonly sensitivePurposes: readonly string[];
}

/** The regime catalogue. */
export const REGIME_DEFINITIONS: Readonly<Record<Regime, RegimeDefinition>> = {
  gdpr: {
    regime: 'gdpr',
    name: 'EU General Data Protection Regulation',
    jurisdiction: 'EU',
    citations: {
      withdrawal_parity: 'GDPR Art. 7(3)',
      minimum_age: 'GDPR Art. 8(1)',
      retention_ceiling: 'GDPR Art. 5(1)(e)',
      sensitive_purposes: 'GDPR Art. 9(2)(a)',
    },
    minimumAgeFloor: 13,
    defaultMinimumAge: 16,
    defaultRetentionCeiling: 'P2Y',
    sensitivePurposes: SPECIAL_CATEGORIES,
  },
  uk_gdpr: {
    regime: 'uk_gdpr',
    name: 'UK GDPR and Data Protection Act 2018',
    jurisdiction: 'GB',
    citations: {
      withdrawal_parity: 'UK GDPR Art. 7(3)',
      minimum_age: 'UK GDPR Art. 8(1); DPA 2018 s.9',
      retention_ceiling: 'UK GDPR Art. 5(1)(e)',
      sensitive_purposes: 'UK GDPR Art. 9(2)(a)',
    },
    minimumAgeFloor: 13,
    defaultMinimumAge: 13,
    defaultRetentionCeiling: 'P2Y',
    sensitivePurposes: SPECIAL_CATEGORIES,
  },
  ccpa_cpra: {
    regime: 'ccpa_cpra',
    name: 'California Consumer Privacy Act as amended by the CPRA',
    jurisdiction: 'US-CA',
    citations: {
      withdrawal_parity: 'Cal. Code Regs. tit. 11 § 7004(a)(2)',
      minimum_age: 'Cal. Civ. Code § 1798.120(c)',
      retention_ceiling: 'Cal. Civ. Code § 1798.100(a)(3)',
      sensitive_purposes: 'Cal. Civ. Code § 1798.121',
    },
    minimumAgeFloor: 16,
    defaultMinimumAge: 16,
    defaultRetentionCeiling: 'P2Y',
    sensitivePurposes: [...SPECIAL_CATEGORIES, 'precise_geolocation', 'government_id', 'financial_account'],
  },
  lgpd: {
    regime: 'lgpd',
    name: 'Lei Geral de Proteção de Dados (Brazil)',
    jurisdiction: 'BR',
    citations: {
      withdrawal_parity: 'LGPD Art. 8 §5',
      minimum_age: 'LGPD Art. 14 §1',
      retention_ceiling: 'LGPD Art. 15 and 16',
      sensitive_purposes: 'LGPD Art. 11(I)',
    },
    minimumAgeFloor: 12,
    defaultMinimumAge: 18,
    defaultRetentionCeiling: 'P2Y',
    sensitivePurposes: SPECIAL_CATEGORIES,
  },
  pipl: {
    regime: 'pipl',
    name: 'Personal Information Protection Law (China)',
    jurisdiction: 'CN',
    citations: {
      withdrawal_parity: 'PIPL Art. 15',
      minimum_age: 'PIPL Art. 31',
      retention_ceiling: 'PIPL Art. 19',
      sensitive_purposes: 'PIPL Art. 28-29',
    },
    minimumAgeFloor: 14,
    defaultMinimumAge: 14,
    defaultRetentionCeiling: 'P1Y',
    sensitivePurposes: [...SPECIAL_CATEGORIES, 'precise_geolocation', 'financial_account', 'minors'],
  },
};

/** What one enabled module enforces (the defaults, tightened by the application). */
export interface ModuleRules {
  /** Withdrawal as easy as consent: always on, the law allows no exception. */
  readonly withdrawal_parity: true;
  readonly minimum_age: number;
  /** Longest declared retention allowed (ISO 8601 duration). */
  readonly retention_ceiling: string;
  /** Purpose keys that need explicit, unbundled consent: the regime's plus the application's. */
  readonly sensitive_purposes: readonly string[];
}

/** One module of an application: a regime, whether it is enabled, and its rules. */
export interface ComplianceModule {
  readonly regime: Regime;
  readonly enabled: boolean;
  readonly rules: ModuleRules;
  readonly updatedAt: Date | null;
}

/** The application's own settings of a module as stored (undefined = the regime's default). */
export interface ModuleSettings {
  minimum_age?: number;
  retention_ceiling?: string;
  /** Extra purpose keys the application treats as sensitive. */
  sensitive_purposes?: string[];
}

/** The rules a module enforces: the regime's defaults merged with the application's settings. */
export function moduleRules(regime: Regime, settings: ModuleSettings): ModuleRules {
  const definition = REGIME_DEFINITIONS[regime];
  return {
    withdrawal_parity: true,
    minimum_age: settings.minimum_age ?? definition.defaultMinimumAge,
    retention_ceiling: settings.retention_ceiling ?? definition.defaultRetentionCeiling,
    sensitive_purposes: [...new Set([...definition.sensitivePurposes, ...(settings.sensitive_purposes ?? [])])].sort(),
  };
}

/**
 * The `jurisdiction` a receipt states for an application: the one enabled regime's; with several,
 * the one whose territory holds the region's country (where the record is stored); otherwise
 * `unspecified`, because the platform cannot say which law the controller relies on.
 */
export function jurisdictionOf(enabled: readonly Regime[], regionCountry: string): string {
  if (enabled.length === 0) return 'unspecified';
  if (enabled.length === 1) return REGIME_DEFINITIONS[enabled[0]!].jurisdiction;
  const home = enabled.find((regime) => territoryHolds(REGIME_DEFINITIONS[regime].jurisdiction, regionCountry));
  return home ? REGIME_DEFINITIONS[home].jurisdiction : 'unspecified';
}

/** EU/EEA member states (GDPR applies), ISO 3166-1 alpha-2. */
const EEA = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
  'IS',
  'LI',
  'NO',
]);

function territoryHolds(jurisdiction: string, country: string): boolean {
  if (jurisdiction === 'EU') return EEA.has(country);
  // A subdivision (US-CA) does not hold a whole country's records.
  return jurisdiction === country;
}
