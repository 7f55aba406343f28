/**
 * What went wrong, independent of transport. The HTTP edge maps a kind to a status; the NATS
 * side carries kind and code in its reply so a caller can rethrow the same error.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'misdirected'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export const HTTP_STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  misdirected: 421,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** The wire envelope of every error response. */
export interface ErrorEnvelope {
  message: string;
  reason_code?: string;
  detail?: Record<string, unknown>;
}

/** An expected failure of a domain operation, carrying a stable reason code. */
export class DomainError<Code extends string = string> extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: Code,
    message: string,
    readonly detail?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After; ignored off HTTP. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toEnvelope(): ErrorEnvelope {
    return { message: this.message, reason_code: this.code, ...(this.detail ? { detail: this.detail } : {}) };
  }
}

const declaredReasonCodes = new Map<string, ErrorKind>();

/** Every reason code declared by a loaded domain, with its kind (the API document lists them per status). */
export function reasonCodesByKind(): ReadonlyMap<string, ErrorKind> {
  return declaredReasonCodes;
}

/**
 * Declares a domain's closed list of reason codes with their kinds, and returns a typed factory:
 * `const grantError = defineErrors({ agent_credential_replayed: 'conflict' });`
 * `throw grantError('agent_credential_replayed', 'credential already used');`
 */
export function defineErrors<const Table extends Record<string, ErrorKind>>(table: Table) {
  type Code = Extract<keyof Table, string>;
  for (const [code, kind] of Object.entries(table)) declaredReasonCodes.set(code, kind);
  const factory = (code: Code, message: string, detail?: Record<string, unknown>, headers?: Record<string, string>): DomainError<Code> =>
    new DomainError(table[code] as ErrorKind, code, message, detail, headers);
  factory.codes = Object.keys(table) as Code[];
  factory.kindOf = (code: Code): ErrorKind => table[code] as ErrorKind;
  return factory;
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
