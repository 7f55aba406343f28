import { Controller, Get, Param } from '@nestjs/common';
import { Public } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf, Nullable } from '@svc/server';
import { IsIn, IsString } from 'class-validator';
import { GrantsRepository } from '../grants/grants.repository';
import { oapError } from '../oap.errors';

/** The wire shape of `/.well-known/oap-credentials/:id`. */
export class OapCredentialResponse {
  @IsIn(['oap_credential']) object!: 'oap_credential';
  /** The grant id (`ath_<region>_…`) the credential was issued for. */
  @IsString() id!: string;
  /** Now: `active`, `revoked`, `expired`, or `consumed` (a single-use receipt used for its one action). */
  @IsIn(['active', 'revoked', 'expired', 'consumed']) status!: 'active' | 'revoked' | 'expired' | 'consumed';
  /** `jti` of the runtime receipt (the signed credential a counterparty is shown). */
  @IsString() receipt_jti!: string;
  /** SHA-256 hex of the compact receipt, to match a presented receipt without sending it. */
  @IsString() receipt_sha256!: string;
  @IsString() agent_id!: string;
  @IsString({ each: true }) scope!: string[];
  @IsString({ each: true }) actions!: string[];
  @IsString() issued_at!: string;
  @IsString() valid_until!: string;
  @IsString() @Nullable() revoked_at!: string | null;
  @IsString() @Nullable() consumed_at!: string | null;
  /** Where a counterparty verifies the receipt itself (signature, status, consumption). */
  @IsString() verify_url!: string;
  @IsString() revocation_list_url!: string;
}

/**
 * `/.well-known/oap-credentials/:id`: anonymous, the public status of the credential issued with a
 * grant — its runtime receipt's `jti` and digest, what it covers and whether it still holds. Never
 * the agent token, the receipt itself, the principal or the application's data. Unknown or
 * malformed ids answer one 404.
 */
@Public()
@Controller('.well-known/oap-credentials')
export class OapCredentialsController {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  @ApiDoc({ summary: 'Public status of the credential (runtime receipt) issued with a grant', tag: 'OAP', errors: [404] })
  @Get(':credential_id')
  @ApiResponseOf(OapCredentialResponse)
  async get(@Param('credential_id') id: string): Promise<OapCredentialResponse> {
    const grant = isIdOf('oap_grant', id) ? await this.grants.find(id) : undefined;
    if (!grant) throw oapError('grant_not_found', 'Credential not found', { credential_id: id });
    const status =
      grant.status === 'revoked' ? 'revoked' : grant.consumedAt ? 'consumed' : grant.validUntil <= this.clock.now() ? 'expired' : 'active';
    return {
      object: 'oap_credential',
      id: grant.id,
      status,
      receipt_jti: grant.receiptJti,
      receipt_sha256: sha256Hex(grant.receipt),
      agent_id: grant.agentId,
      scope: grant.scopes,
      actions: grant.actions,
      issued_at: grant.createdAt.toISOString(),
      valid_until: grant.validUntil.toISOString(),
      revoked_at: grant.revokedAt?.toISOString() ?? null,
      consumed_at: grant.consumedAt?.toISOString() ?? null,
      verify_url: `${this.config.publicBaseUrl}/.well-known/svc-verify`,
      revocation_list_url: `${this.config.publicBaseUrl}/.well-known/oap-revocation-list`,
    };
  }
}
