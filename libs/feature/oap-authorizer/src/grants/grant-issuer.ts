import { Inject, Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { newId, newRegionalId } from '@svc/ids';
import type { OutboxWriter, PendingEvent } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { Authority } from '../authorities/authority';
import { ChronicleDirectory } from '../shared/chronicle';
import { OAP_OUTBOX } from '../tokens';
import type { GrantRequest } from './checks/cascade-step';
import type { Grant } from './grant';
import { grantRequestToJson } from './grant-request-json';
import { GrantsRepository, type AttestationTokenInsert, type DecisionRecord, type GrantInsert } from './grants.repository';
import type { VerifiedAttestation } from './evidence/agent-evidence-verifier';
import { ReceiptSigner, type SignedReceipt } from './receipts';

/** How long an attestation token stays retrievable at /.well-known/oap-attestation (spec, Limits). */
export const ATTESTATION_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** A freshly issued grant; `agentToken` exists only here (stored as SHA-256). */
export interface IssuedGrant {
  grant: Grant;
  agentToken: string;
  receipt: string;
  receiptClaims: Record<string, unknown>;
}

/** What an allowed grant is minted from. */
export interface GrantMintInput {
  request: GrantRequest;
  now: Date;
  contextHash: string;
  attestation?: VerifiedAttestation;
}

/** A grant id, agent token and signed receipt, made before the outcome is known (no database). */
export interface SignedGrant {
  grantId: string;
  agentToken: string;
  signed: SignedReceipt;
}

/**
 * The rows an allowed grant writes: grant, attestation token, decision, and its events:
 * `grant.decided` and `authority.exercised` (the authority's `authority exercised` audit entry and
 * receipt event).
 */
export interface GrantRows {
  grant: GrantInsert;
  attestation?: AttestationTokenInsert;
  decision: DecisionRecord;
  events: PendingEvent[];
}

/**
 * Mints allowed grants: `ath_<region>_…` id, `ra_agent_…` token (DPoP-bound to the request's jkt,
 * stored as SHA-256), the signed authorizer receipt, the grant row, the decision row, the
 * `grant.decided` event for the audit chain and the authority's `authority.exercised`. Signing needs no database, so a batch signs before
 * its transaction and writes the rows of all its grants together.
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

  /** Issues one grant inside the caller's transaction. */
  async issue(manager: EntityManager, input: GrantMintInput & { authority: Authority; escalationId?: string }): Promise<IssuedGrant> {
    const signed = await this.sign(input);
    const { issued, rows } = this.mint(signed, { ...input, requestJson: canonicalJson(grantRequestToJson(input.request)) });
    await this.write(manager, [rows]);
    return issued;
  }

  /** Allocates the grant id and agent token and signs the receipt. */
  async sign(input: GrantMintInput): Promise<SignedGrant> {
    const { request } = input;
    const grantId = newRegionalId('oap_grant', this.config.REGION);
    const signed = await this.receipts.signAuthorizerReceipt({
      grantId,
      applicationId: request.applicationId,
      scopes: request.scopes,
      actions: request.actions,
      value: request.value,
      chronicleId: await this.chronicle.chronicleId(),
      contextHash: input.contextHash,
      issuedAt: input.now,
      grantValidUntil: request.validUntil,
      metadata: request.metadata,
      delegationChain: request.delegationChain,
      attestation: input.attestation?.overlay,
    });
    return { grantId, agentToken: newId('agent_token'), signed };
  }

  /** The issued grant and its rows under `authority` (signed with the same `now`). */
  mint(
    signedGrant: SignedGrant,
    input: GrantMintInput & { authority: Authority; requestJson: string; escalationId?: string },
  ): { issued: IssuedGrant; rows: GrantRows } {
    const { request, authority, now } = input;
    const { grantId, agentToken, signed } = signedGrant;
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
    const rows: GrantRows = {
      grant: { grant, tokenSha256: sha256Hex(agentToken), contextHash: input.contextHash, requestJson: input.requestJson },
      attestation: input.attestation
        ? {
            receiptJti: signed.jti,
            grantId,
            format: input.attestation.overlay.format,
            token: input.attestation.token,
            claimsDigest: input.attestation.overlay.claims_digest,
            createdAt: now,
            retainUntil: new Date(now.getTime() + ATTESTATION_RETENTION_MS),
          }
        : undefined,
      decision: {
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
      },
      events: [
        {
          type: 'grant.decided',
          init: {
            decision: 'allow',
            grantId,
            agentId: request.agentId,
            authorityId: authority.id,
            receiptJti: signed.jti,
            receiptSha256: sha256Hex(signed.token),
            escalationId: input.escalationId ?? '',
            contextHash: input.contextHash,
          },
          context: { applicationId: request.applicationId, occurredAt: now },
        },
        {
          type: 'authority.exercised',
          init: {
            authorityId: authority.id,
            agentId: request.agentId,
            status: authority.status,
            boundsJson: authority.boundsJson,
            validFrom: authority.validFrom.toISOString(),
            validUntil: authority.validUntil.toISOString(),
            purposes: authority.purposes,
            coolingOffSeconds: authority.coolingOffSeconds,
            createdAt: authority.createdAt.toISOString(),
          },
          context: { applicationId: request.applicationId, occurredAt: now },
        },
      ],
    };
    return { issued: { grant, agentToken, receipt: signed.token, receiptClaims: signed.claims }, rows };
  }

  /** Writes the rows of several grants: one statement per table, one outbox insert. */
  async write(manager: EntityManager, rows: readonly GrantRows[]): Promise<void> {
    await this.grants.insertGrants(
      manager,
      rows.map((row) => row.grant),
    );
    await this.grants.insertAttestationTokens(
      manager,
      rows.flatMap((row) => (row.attestation ? [row.attestation] : [])),
    );
    await this.grants.insertDecisions(
      manager,
      rows.map((row) => row.decision),
    );
    await this.outbox.addMany(
      manager,
      rows.flatMap((row) => row.events),
    );
  }
}
