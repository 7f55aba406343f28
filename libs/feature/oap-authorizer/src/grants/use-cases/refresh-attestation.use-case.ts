import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig, homeRegionOf, isRegion } from '@svc/config';
import { DomainError, HTTP_STATUS_BY_KIND, WrongRegionError } from '@svc/errors';
import { parseId } from '@svc/ids';
import { decodeJwt } from 'jose';
import { IdempotencyStore, type StoredResponse } from '../../shared/idempotency-store';
import { ChronicleDirectory } from '../../shared/chronicle';
import { AgentEvidenceVerifier, type AttestationBlock } from '../evidence/agent-evidence-verifier';
import { ATTESTATION_RETENTION_MS } from '../grant-issuer';
import type { AttestationRefreshedResponse } from '../grant-decision.responses';
import type { Grant } from '../grant';
import { grantRequestFromJson } from '../grant-request-json';
import { GrantsRepository } from '../grants.repository';
import { ReceiptSigner } from '../receipts';

/**
 * `POST /api/v1/grants/:grant_id/attestation`: verifies a new vendor-jwt-v1 attestation for a
 * grant (identity must agree with the grant and the prior attestation), signs a fresh authorizer
 * receipt carrying the new overlay, and keeps the token retrievable for 90 days. The grant must
 * be homed here (`grant_region_mismatch` 421 otherwise). Idempotency-Key (UUIDv4) per grant.
 */
@Injectable()
export class RefreshAttestation {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly evidence: AgentEvidenceVerifier,
    private readonly receipts: ReceiptSigner,
    private readonly chronicle: ChronicleDirectory,
    private readonly idempotency: IdempotencyStore,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** Refuses a grant id of another region before anything else is looked at. */
  assertHomeRegion(grantId: string): void {
    const parsed = parseId(grantId);
    if (parsed?.kind === 'oap_grant' && isRegion(parsed.region) && parsed.region !== this.config.REGION) {
      throw new WrongRegionError(homeRegionOf(this.config, parsed.region), 'grant_region_mismatch');
    }
  }

  async execute(grant: Grant, block: AttestationBlock, idempotencyKey: string, requestSha256: string): Promise<StoredResponse> {
    const scope = `attestation:${grant.id}`;
    const claim = await this.idempotency.claim(grant.applicationId, scope, idempotencyKey, requestSha256);
    if (claim.state === 'replay') return claim.response;
    try {
      const request = grantRequestFromJson(JSON.parse((await this.grants.requestJson(grant.id)) ?? '{}') as Record<string, unknown>);
      const priorToken = await this.grants.latestAttestationToken(grant.id);
      const verified = await this.evidence.verifyAttestation(block, {
        agentId: grant.agentId,
        metadata: request.metadata,
        prior: priorToken ? decodeJwt(priorToken) : undefined,
      });
      const now = this.clock.now();
      const signed = await this.receipts.signAuthorizerReceipt({
        grantId: grant.id,
        applicationId: grant.applicationId,
        scopes: grant.scopes,
        actions: grant.actions,
        value: request.value,
        chronicleId: await this.chronicle.chronicleId(),
        contextHash: this.contextHashOf(grant),
        issuedAt: now,
        grantValidUntil: grant.validUntil,
        metadata: request.metadata,
        delegationChain: request.delegationChain,
        attestation: verified.overlay,
      });
      const response: StoredResponse = {
        status: 200,
        body: {
          grant_id: grant.id,
          grant_attestation: signed.token,
          agent_attestation: verified.overlay,
          retained_until: new Date(now.getTime() + ATTESTATION_RETENTION_MS).toISOString(),
        } satisfies AttestationRefreshedResponse,
      };
      await this.grants.transaction(async (manager) => {
        await this.grants.insertAttestationToken(manager, {
          receiptJti: signed.jti,
          grantId: grant.id,
          format: verified.overlay.format,
          token: verified.token,
          claimsDigest: verified.overlay.claims_digest,
          createdAt: now,
          retainUntil: new Date(now.getTime() + ATTESTATION_RETENTION_MS),
        });
        await this.grants.replaceReceipt(manager, grant.id, signed.jti, signed.token);
        await this.idempotency.complete(manager, grant.applicationId, scope, idempotencyKey, response);
      });
      return response;
    } catch (error) {
      if (error instanceof DomainError && HTTP_STATUS_BY_KIND[error.kind] < 500) {
        const stored = { status: HTTP_STATUS_BY_KIND[error.kind], body: { ...error.toEnvelope() } };
        await this.grants.transaction((manager) => this.idempotency.complete(manager, grant.applicationId, scope, idempotencyKey, stored));
      } else {
        await this.idempotency.release(grant.applicationId, scope, idempotencyKey);
      }
      throw error;
    }
  }

  private contextHashOf(grant: Grant): string {
    const claims = decodeJwt(grant.receipt);
    return typeof claims.context_hash === 'string' ? claims.context_hash : '';
  }
}
