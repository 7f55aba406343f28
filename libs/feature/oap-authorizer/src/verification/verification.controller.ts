import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { Auth, CurrentPrincipal, Public, RequireAttesterPermission, RequireCounterpartyScope, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DomainError } from '@svc/errors';
import {
  AttestationTokenResponse,
  DecodeReceiptResponse,
  RevocationListEntryResponse,
  VerifyReceiptResponse,
  type ReceiptConsumptionResponse,
} from './verification.response';
import { DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiDoc, ApiResponseOf } from '@svc/server';
import { RevocationResponse } from '../grants/grant-decision.responses';
import { ReceiptVerificationError, verifyReceipt } from '@svc/sdk-receipts-verify';
import type { FastifyReply } from 'fastify';
import { GrantsRepository } from '../grants/grants.repository';
import { oapError } from '../oap.errors';
import { GrantStatusDirectory } from './grant-status';
import { RevokeGrant } from './use-cases/revoke-grant.use-case';
import { AttestationQuery, DecodeReceiptBody, RevokeGrantBody, VerifyReceiptBody } from './verification.dto';
import { DataSource } from 'typeorm';

/** Cache lifetime of the revocation list, seconds (spec, Limits). */
export const REVOCATION_LIST_MAX_AGE_SECONDS = 60;

function decodeSegment(segment: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw oapError('receipt_malformed', 'receipt is not a compact JWS with JSON header and payload', { field: 'receipt' });
}

/** Verification endpoints: svc-verify, svc-decode, the revocation list, revocations, attestation retrieval. */
@Controller()
export class VerificationController {
  constructor(
    private readonly directory: GrantStatusDirectory,
    private readonly revokeGrant: RevokeGrant,
    private readonly grants: GrantsRepository,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * Counterparty verification (bearer: a trust pairing's counterparty token with `receipts:verify`,
   * which verifies only receipts issued to the pairing's issuing application, or an application's
   * API token). Answers 200 with `valid` and its parts — signature validity, current revocation
   * status asked of the grant's home region, and with `action_completed` the one-shot
   * consumption: a single-use receipt is valid for one completed action only.
   */
  @ApiDoc({
    summary: 'Counterparty verification of a runtime receipt: signature, current revocation status, one-shot consumption',
    tag: 'OAP',
    errors: [400, 401, 403, 422],
  })
  @Post('.well-known/svc-verify')
  @Auth('counterparty_token', 'api_token')
  @RequireCounterpartyScope('receipts:verify')
  @HttpCode(200)
  @ApiResponseOf(VerifyReceiptResponse)
  async verify(@CurrentPrincipal() principal: Principal, @Body() body: VerifyReceiptBody): Promise<VerifyReceiptResponse> {
    const parts = body.receipt.split('.');
    if (parts.length !== 3) throw oapError('receipt_malformed', 'receipt is not a compact JWS', { field: 'receipt' });
    decodeSegment(parts[0]);
    decodeSegment(parts[1]);
    // The signature first: the grant a forged payload names is never looked up, so a forgery
    // learns nothing about it and causes no call to its home region.
    let keyUnavailable = false;
    let claims: Record<string, unknown>;
    try {
      const verified = await verifyReceipt(body.receipt, {
        keys: async (kid) => {
          const lookup = await this.directory.signingKey(kid);
          keyUnavailable = lookup.jwk === undefined && lookup.unavailable;
          return lookup.jwk;
        },
        now: this.clock.now(),
        roles: ['authorizer'],
      });
      claims = verified.claims;
    } catch (error) {
      if (!(error instanceof ReceiptVerificationError)) throw error;
      return {
        valid: false,
        reason_code: keyUnavailable ? 'revocation_status_unavailable' : error.code,
        signature: { valid: false, reason_code: error.code },
        revocation: { status: 'not_checked', revoked_at: null },
        grant_id: null,
        iss_role: null,
        claims: null,
      };
    }
    // A pairing covers the receipts of its issuing application (their `aud`), checked before the
    // grant's status is asked or the receipt consumed.
    if (principal.kind === 'counterparty_token' && claims.aud !== principal.applicationId) {
      throw oapError('receipt_not_paired', 'This trust pairing does not cover receipts issued to that application', {
        trust_pairing_id: principal.credentialId,
      });
    }
    const grantId = typeof claims.grant_id === 'string' ? claims.grant_id : '';
    const status = grantId ? await this.directory.status(grantId, '') : undefined;
    const revocation = { status: status?.status ?? 'unknown', revoked_at: status?.revokedAt ?? null };
    let consumption: ReceiptConsumptionResponse | undefined;
    let reason =
      revocation.status === 'revoked' ? 'grant_revoked' : revocation.status === 'unknown' ? 'revocation_status_unavailable' : undefined;
    if (!reason && status?.consumedAt) reason = 'receipt_consumed';
    if (!reason && body.action_completed === true) {
      const consumed = await this.directory.consume(grantId);
      if (!consumed) reason = 'revocation_status_unavailable';
      else if (!consumed.consumed) reason = 'receipt_consumed';
      else consumption = { acknowledged: true, grant_id: grantId, consumed_at: this.clock.now().toISOString() };
    }
    return {
      valid: reason === undefined,
      ...(reason ? { reason_code: reason } : {}),
      signature: { valid: true },
      revocation,
      ...(consumption ? { consumption } : {}),
      grant_id: grantId || null,
      iss_role: claims.iss_role ?? null,
      claims,
    };
  }

  /** Anonymous: the receipt's header and payload, explicitly unverified. */
  @ApiDoc({ summary: 'Decode a runtime receipt without verifying it (anonymous)', tag: 'OAP', errors: [400, 422] })
  @Post('.well-known/svc-decode')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(DecodeReceiptResponse)
  decode(@Body() body: DecodeReceiptBody): DecodeReceiptResponse {
    const parts = body.receipt.split('.');
    if (parts.length !== 3) throw oapError('receipt_malformed', 'receipt is not a compact JWS', { field: 'receipt' });
    return { verified: false, header: decodeSegment(parts[0]), payload: decodeSegment(parts[1]) } satisfies DecodeReceiptResponse;
  }

  /** Public revocation list of this region, oldest first, cursor-paginated; cached 60 s. */
  @ApiDoc({ summary: 'Revoked grants of this region (cursor pagination, cached 60 s)', tag: 'OAP', errors: [400, 422] })
  @Get('.well-known/oap-revocation-list')
  @Public()
  @ApiResponseOf(RevocationListEntryResponse, { page: true })
  async revocationList(
    @Query() query: PageQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<RevocationListEntryResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['seq']).seq : undefined;
    if (after !== undefined && !/^\d{1,18}$/.test(after))
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows: Array<{ seq: string; grant_id: string; reason_code: string; revoked_at: Date }> = await this.dataSource.query(
      `SELECT seq::text AS seq, grant_id, reason_code, revoked_at FROM oap.revocations WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [after ?? '0', limit + 1],
    );
    void reply.header('cache-control', `public, max-age=${REVOCATION_LIST_MAX_AGE_SECONDS}`);
    return toPage(
      rows,
      limit,
      (r) => ({ grant_id: r.grant_id, reason_code: r.reason_code, revoked_at: r.revoked_at.toISOString() }),
      (r) => ({ seq: r.seq }),
    );
  }

  /**
   * Revokes a grant of the caller's application: 201 when this call revoked it, 200 when it was
   * already revoked. Idempotency-Key: the platform's (a retry replays the first answer). Callers:
   * the application's API token, or a trusted attester holding the operator-granted
   * `revocations:trigger` permission.
   */
  @Auth('api_token', 'attester_token')
  @RequireAttesterPermission('revocations:trigger')
  @ApiDoc({ summary: 'Revoke a grant of the application (Idempotency-Key supported)', tag: 'OAP', errors: [400, 401, 404, 421, 422] })
  @Post('api/v1/oap/revocations')
  @ApiResponseOf(RevocationResponse, { status: 201 })
  @ApiResponseOf(RevocationResponse, { status: 200 })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RevokeGrantBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RevocationResponse> {
    const { revocation, created } = await this.revokeGrant.execute(
      principal,
      body.grant_id,
      body.reason_code ?? 'unspecified',
      body.reason ?? '',
    );
    void reply.status(created ? 201 : 200);
    return {
      object: 'revocation',
      grant_id: revocation.grantId,
      reason_code: revocation.reasonCode,
      reason: revocation.reason,
      revoked_at: revocation.revokedAt.toISOString(),
    };
  }

  /**
   * Anonymous retrieval of the attestation JWT behind a receipt's overlay: 200 exactly
   * `{format, token}`; 404 for an unknown receipt or one without overlay (one envelope); 409 when
   * `digest` is not the overlay's claims_digest; 410 past the 90-day retention.
   */
  @ApiDoc({
    summary: 'Attestation JWT behind a receipt overlay: 200 {format, token}, 404, 409 digest mismatch, 410 past 90 days',
    tag: 'OAP',
    errors: [400, 404, 409, 410],
  })
  @Get('.well-known/oap-attestation')
  @Public()
  @ApiResponseOf(AttestationTokenResponse)
  async attestation(@Query() query: AttestationQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<AttestationTokenResponse> {
    const stored = await this.grants.findAttestationToken(query.jti);
    if (!stored) throw oapError('attestation_not_found', 'No attestation for this receipt');
    if (stored.retainUntil <= this.clock.now()) throw oapError('attestation_gone', 'The attestation is past its 90-day retention');
    const digest = query.digest.replace(/^sha256:/, '');
    if (digest !== stored.claimsDigest)
      throw oapError('attestation_digest_mismatch', 'digest does not match the receipt overlay', { field: 'digest' });
    void reply.header('cache-control', 'private, max-age=300');
    return { format: stored.format, token: stored.token };
  }
}
