// The transfer register's vocabulary: shared by the register and every service that records a crossing.
/** Lawful bases of a transfer (GDPR Chapter V). */
export const LAWFUL_BASES = ['adequacy_decision', 'standard_contractual_clauses', 'binding_corporate_rules', 'derogation'] as const;
export type LawfulBasis = (typeof LAWFUL_BASES)[number];

/** GDPR Art. 49 derogations a `derogation` basis must name. */
export const DEROGATION_ARTICLES = [
  '49(1)(a)',
  '49(1)(b)',
  '49(1)(c)',
  '49(1)(d)',
  '49(1)(e)',
  '49(1)(f)',
  '49(1)(g)',
  '49(1) second subparagraph',
] as const;

/** The cases in which personal data crosses a region (spec, issue: Transfer register). */
export const TRANSFER_CASES = [
  'delegate_in_other_region',
  'presentation',
  'dsar_export',
  'support_operator',
  'cross_border_signing',
  'licensed_recipient',
] as const;
export type TransferCase = (typeof TRANSFER_CASES)[number];

/** Categories of personal data the register names. */
export const DATA_CATEGORIES = [
  'identifiers',
  'contact_data',
  'consent_records',
  'receipts',
  'audit_entries',
  'delegation_grants',
  'agent_grants',
  'decision_sessions',
  'presented_credentials',
] as const;
export type DataCategory = (typeof DATA_CATEGORIES)[number];
