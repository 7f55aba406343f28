import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { COUNTERPARTY_SCOPES, type CounterpartyScope } from '@svc/auth';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { TRUST_PAIRING_STATUSES, type TrustPairingStatus } from './trust-pairing';

/** Body of POST /api/v1/trust_pairings: the calling application proposes to be verified by a counterparty. */
export class ProposeTrustPairingBody {
  /** The counterparty: another application (`tp_…`) of this region and environment; it accepts with its own API token. */
  @IsDefined()
  @IsIdOf('application')
  counterparty_application_id!: string;

  /** What the counterparty token may do: `receipts:verify` (svc-verify of the caller's runtime receipts), `consent_status:read` (the caller's consent status). */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(COUNTERPARTY_SCOPES.length)
  @ArrayUnique()
  @IsIn(COUNTERPARTY_SCOPES, { each: true })
  scopes!: CounterpartyScope[];

  /** A label both sides see. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

/** Query of GET /api/v1/trust_pairings. */
export class ListTrustPairingsQuery extends PageQuery {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(TRUST_PAIRING_STATUSES)
  status?: TrustPairingStatus;

  /** Only pairings where the caller is the `issuer` or the `counterparty`. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(['issuer', 'counterparty'])
  role?: 'issuer' | 'counterparty';
}
