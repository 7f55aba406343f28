import { IsDefined, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsIdOf, RoutedBy } from '@svc/ids';

/** Query of the receipt GET routes: `flavor` only (other parameters are refused). */
export class ReceiptQuery {
  /** `canonical` (default), `dpv` or `signed`; another value is `unknown_flavor` (400). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  flavor?: string;
}

/** RFC 3339 date-time with an explicit offset (no local times: a receipt must be unambiguous). */
const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * Body of `POST /api/v1/disclosure_receipts` (spec, Disclosure receipt): a closed payload. Any
 * other member — in particular one claiming platform delivery — is refused (400 invalid_request).
 */
@RoutedBy('flow_id', 'agent_id')
export class DisclosureReceiptBody {
  /** The flow whose notice was disclosed (`flw_<region>_…`). */
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  /** The agent that disclosed it (`agent_<region>_…`). */
  @IsDefined()
  @IsIdOf('agent')
  agent_id!: string;

  /** RFC 3339 timestamp with offset; at most a minute ahead of the platform clock. */
  @IsDefined()
  @IsString()
  @MaxLength(40)
  @Matches(RFC3339, { message: 'disclosed_at must be an RFC 3339 date-time with offset' })
  disclosed_at!: string;

  /** BCP 47 language tag, e.g. `en` or `en-GB`. */
  @IsDefined()
  @IsString()
  @MaxLength(35)
  @Matches(/^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, { message: 'locale must be a BCP 47 language tag such as en-GB' })
  locale!: string;
}
