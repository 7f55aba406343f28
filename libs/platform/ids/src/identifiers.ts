import { randomBase32, randomBase62, randomBase64Url } from './random';

/** Regions an identifier's region segment may name; `dev` marks a development deployment. */
export const ID_REGIONS = ['us', 'eu', 'ap', 'dev'] as const;
export type IdRegion = (typeof ID_REGIONS)[number];

/**
 * Every identifier format of the spec. `regional` kinds carry `<prefix>_<region>_<random>`; the
 * random part is drawn from a CSPRNG so identifiers cannot be enumerated.
 */
export const ID_FORMATS = {
  application: { prefix: 'tp', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  flow: { prefix: 'flw', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  delegation_grant: { prefix: 'dlg', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  oap_grant: { prefix: 'ath', regional: true, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
  agent: { prefix: 'agent', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  trusted_attester_token: { prefix: 'tat', regional: true, random: () => randomBase64Url(32), body: /^[A-Za-z0-9_-]{43}$/ },
  attestation: { prefix: 'att', regional: true, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
  capability_version: { prefix: 'tpcv', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  authority: { prefix: 'auth', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  trusted_attester: { prefix: 'tatr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  disclosure_receipt: { prefix: 'dscl', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  consent_record: { prefix: 'crec', regional: true, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
  consent_import: { prefix: 'cimp', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  capture_token: { prefix: 'cap', regional: true, random: () => randomBase64Url(32), body: /^[A-Za-z0-9_-]{43}$/ },
  escalation: { prefix: 'esc', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  form_integration: { prefix: 'fint', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  mailing_audience: { prefix: 'mla', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  person: { prefix: 'usr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  person_link: { prefix: 'plk', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  device_link: { prefix: 'dvl', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  data_policy: { prefix: 'pol', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  data_license: { prefix: 'dlic', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  data_offer: { prefix: 'doff', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  data_transfer: { prefix: 'dtx', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  oauth_client: { prefix: 'oac', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  vouch: { prefix: 'vch', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  credential: { prefix: 'vcr', regional: true, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
  agreement: { prefix: 'agr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  agreement_party: { prefix: 'pty', regional: false, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  data_request: { prefix: 'dsr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  agreement_amendment: { prefix: 'amd', regional: false, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  collaboration: { prefix: 'col', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  change_request: { prefix: 'chg', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  trust_pairing: { prefix: 'tpr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  counterparty_token: { prefix: 'ctp', regional: true, random: () => randomBase64Url(32), body: /^[A-Za-z0-9_-]{43}$/ },
  clean_room: { prefix: 'clr', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  account: { prefix: 'acc', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  evidence_package: { prefix: 'evp', regional: true, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  decision_session_token: { prefix: 'dts', regional: false, random: () => randomBase64Url(32), body: /^[A-Za-z0-9_-]{43}$/ },
  publishable_key_test: { prefix: 'pk_test', regional: false, random: () => randomBase62(32), body: /^[0-9A-Za-z]{32}$/ },
  publishable_key_live: { prefix: 'pk_live', regional: false, random: () => randomBase62(32), body: /^[0-9A-Za-z]{32}$/ },
  account_token_record: { prefix: 'account_token', regional: false, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  api_token_record: { prefix: 'api_token', regional: false, random: () => randomBase32(20), body: /^[a-z2-7]{20}$/ },
  agent_token: { prefix: 'ra_agent', regional: false, random: () => randomBase64Url(32), body: /^[A-Za-z0-9_-]{43}$/ },
  witness_receipt: { prefix: 'wrec', regional: false, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
  audit_record: { prefix: 'audit_rec', regional: false, random: () => randomBase32(24), body: /^[a-z2-7]{24}$/ },
} as const;

export type IdKind = keyof typeof ID_FORMATS;
type RegionalKind = { [K in IdKind]: (typeof ID_FORMATS)[K]['regional'] extends true ? K : never }[IdKind];
type GlobalKind = Exclude<IdKind, RegionalKind>;

/** Mints a new regional identifier, e.g. `newRegionalId('application', 'eu')` → `tp_eu_…`. */
export function newRegionalId(kind: RegionalKind, region: IdRegion): string {
  const format = ID_FORMATS[kind];
  return `${format.prefix}_${region}_${format.random()}`;
}

/** Mints a new identifier without a region segment, e.g. `dts_…`, `audit_rec_…`. */
export function newId(kind: GlobalKind): string {
  const format = ID_FORMATS[kind];
  return `${format.prefix}_${format.random()}`;
}

/** Opaque API token: 32 random bytes, URL-safe base64, no prefix (shown once, stored as SHA-256). */
export function newApiToken(): string {
  return randomBase64Url(32);
}

/** Consent token: opaque, 32-byte URL-safe base64. */
export function newConsentToken(): string {
  return randomBase64Url(32);
}

/** Approval session token: 43-character URL-safe base64 (32 random bytes). */
export function newApprovalSessionToken(): string {
  return randomBase64Url(32);
}

export interface ParsedId {
  kind: IdKind;
  region?: IdRegion;
}

const REGIONAL_KINDS = (Object.keys(ID_FORMATS) as IdKind[])
  .filter((k) => ID_FORMATS[k].regional)
  // Longest prefix first so `tpcv_` is not read as `tp_`.
  .sort((a, b) => ID_FORMATS[b].prefix.length - ID_FORMATS[a].prefix.length);
/** `<prefix>_` of each of {@link REGIONAL_KINDS}, in its order. */
const REGIONAL_PREFIXES = REGIONAL_KINDS.map((kind) => `${ID_FORMATS[kind].prefix}_`);
const REGIONAL_PREFIX_SET: ReadonlySet<string> = new Set(REGIONAL_PREFIXES);
const LONGEST_REGIONAL_PREFIX = Math.max(...REGIONAL_PREFIXES.map((prefix) => prefix.length));
const ID_REGION_SET: ReadonlySet<string> = new Set(ID_REGIONS);
if (REGIONAL_PREFIXES.some((prefix) => prefix.split('_').length > 3)) {
  throw new Error('a regional prefix has more than two underscores: regionSegmentOf reads at most two');
}

const GLOBAL_KINDS = (Object.keys(ID_FORMATS) as IdKind[])
  .filter((k) => !ID_FORMATS[k].regional)
  .sort((a, b) => ID_FORMATS[b].prefix.length - ID_FORMATS[a].prefix.length);

/** Parses any identifier of the spec's table; returns its kind and, for regional ids, its region. */
export function parseId(value: string): ParsedId | undefined {
  for (const kind of REGIONAL_KINDS) {
    const format = ID_FORMATS[kind];
    if (!value.startsWith(`${format.prefix}_`)) continue;
    const rest = value.slice(format.prefix.length + 1);
    const separator = rest.indexOf('_');
    if (separator < 0) continue;
    const region = rest.slice(0, separator);
    if (!(ID_REGIONS as readonly string[]).includes(region)) continue;
    if (format.body.test(rest.slice(separator + 1))) return { kind, region: region as IdRegion };
  }
  for (const kind of GLOBAL_KINDS) {
    const format = ID_FORMATS[kind];
    if (value.startsWith(`${format.prefix}_`) && format.body.test(value.slice(format.prefix.length + 1))) return { kind };
  }
  return undefined;
}

/**
 * The whole-string pattern of identifiers of `kind` (what {@link isIdOf} accepts), e.g.
 * `^agent_(us|eu|ap|dev)_[a-z2-7]{20}$`: for validation and for the OpenAPI document.
 */
export function idPattern(kind: IdKind): RegExp {
  const format = ID_FORMATS[kind];
  const body = format.body.source.replace(/^\^/, '').replace(/\$$/, '');
  return new RegExp(format.regional ? `^${format.prefix}_(${ID_REGIONS.join('|')})_${body}$` : `^${format.prefix}_${body}$`);
}

/** True when `value` is a well-formed identifier of `kind`. */
export function isIdOf(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && parseId(value)?.kind === kind;
}

/**
 * Region segment of any string that looks like a regional identifier (`<prefix>_<region>_…`),
 * even one whose random part is malformed: routing must never forward a foreign id.
 */
export function regionSegmentOf(value: string): IdRegion | undefined {
  // Every prefix ends with `_`: the router asks this of every path segment of every request. A
  // prefix `value` starts with ends at its first or second underscore (no prefix has more); the
  // longer is tried first, as REGIONAL_PREFIXES orders them, by one set lookup instead of a
  // comparison per prefix.
  const first = value.indexOf('_');
  if (first < 0 || first >= LONGEST_REGIONAL_PREFIX) return undefined;
  const second = value.indexOf('_', first + 1);
  if (second >= 0 && second < LONGEST_REGIONAL_PREFIX) {
    const region = regionAfter(value, second);
    if (region) return region;
  }
  return regionAfter(value, first);
}

/** The region of `value` if its text up to `end` (an underscore) is a regional prefix followed by `<region>_` and more. */
function regionAfter(value: string, end: number): IdRegion | undefined {
  if (!REGIONAL_PREFIX_SET.has(value.slice(0, end + 1))) return undefined;
  const regionEnd = value.indexOf('_', end + 1);
  if (regionEnd < 0 || regionEnd + 1 >= value.length) return undefined;
  const region = value.slice(end + 1, regionEnd);
  return ID_REGION_SET.has(region) ? (region as IdRegion) : undefined;
}
