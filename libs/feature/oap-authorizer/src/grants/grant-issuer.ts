import { Inject, Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { newId, newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { Authority } from '../authorities/authority';
import { ChronicleDirectory } from '../shared/chronicle';
import { OAP_OUTBOX } from '../tokens';
import type { GrantRequest } from './checks/cascade-step';
import type { Grant } from './grant';
import { grantRequestToJson } from './grant-request-json';
import { GrantsRepository } from './grants.repository';
import type { VerifiedAttestation } from './evidence/agent-evidence-verifier';
import { ReceiptSigner } from './receipts';

/** How long an attestation token stays retrievable at /.well-known/oap-attestation (spec, Limits). */
export const ATTESTATION_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** A freshly issued grant; `agentToken` exists only here (stored as SHA-256). */
export interface IssuedGrant {
  grant: Grant;
  agentToken: string;
  receipt: string;
  receiptClaims: Record<string, unknown>;
}

/**
 * Mints an allowed grant inside the caller's transaction: `ath_<region>_…` id, `ra_agent_…` token
 * (DPoP-bound to the request's jkt, stored as SHA-256), the signed authorizer receipt, the grant
 * row, the decision row and the `grant.decided` event for the audit chain.
 */
@Injectable()
export class GrantIssuer {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly receipts: ReceiptSigner,
    private readonly chronicle: ChronicleDirectory,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly config: PlatformConfig,
  ) {}

  async issue(manager: EntityManager, input: { request: GrantRequest; authority: Authority; now: Date; contextHash: string; attestation?: VerifiedAttestation; escalationId?: string }): Promise<IssuedGrant> {
    const { request, authority, now } = input;
    const grantId = newRegionalId('oap_grant', this.config.REGION);
    const agentToken = newId('agent_token');
    const signed = await this.receipts.signAuthorizerReceipt({
      grantId,
      applicationId: request.applicationId,
      scopes: request.scopes,
      actions: request.actions,
      value: request.value,
      chronicleId: await this.chronicle.chronicleId(),
      contextHash: input.contextHash,
      issuedAt: now,
      grantValidUntil: request.validUntil,
      metadata: request.metadata,
      delegationChain: request.delegationChain,
      attestation: input.attestation?.overlay,
    });
    const grant: Grant = {
      id: grantId,
      applicationId: request.applicationId,
      agentId: request.agentId,
      authorityId: authority.id,
      scopes: request.scopes,
      actions: request.actions,
      amount: request.value?.amount ?? null,
      currency: request.value?.currency ?? null,
      dpopJkt: request.dpopJkt,
      validUntil: request.validUntil,
      status: 'active',
      receiptJti: signed.jti,
      receipt: signed.token,
      createdAt: now,
      revokedAt: null,
      consumedAt: null,
    };
    await this.grants.insertGrant(manager, grant, sha256Hex(agentToken), input.contextHash, canonicalJson(grantRequestToJson(request)));
    if (input.attestation) {
      await this.grants.insertAttestationToken(manager, {
        receiptJti: signed.jti,
        grantId,
        format: input.attestation.overlay.format,
        token: input.attestation.token,
        claimsDigest: input.attestation.overlay.claims_digest,
        createdAt: now,
        retainUntil: new Date(now.getTime() + ATTESTATION_RETENTION_MS),
      });
    }
    await this.grants.insertDecision(manager, {
      id: randomUUID(),
      applicationId: request.applicationId,
      agentId: request.agentId,
      authorityId: authority.id,
      decision: 'allow',
      denialCategory: null,
      cascadeStep: null,
      reasonCode: null,
      grantId,
      escalationId: input.escalationId ?? null,
      contextHash: input.contextHash,
      createdAt: now,
    });
    await this.outbox.add(
      manager,
      'grant.decided',
      {
        decision: 'allow',
        grantId,
        agentId: request.agentId,
        authorityId: authority.id,
        receiptJti: signed.jti,
        receiptSha256: sha256Hex(signed.token),
        escalationId: input.escalationId ?? '',
        contextHash: input.contextHash,
      },
      { applicationId: request.applicationId, occurredAt: now },
    );
    return { grant, agentToken, receipt: signed.token, receiptClaims: signed.claims };
  }
}
