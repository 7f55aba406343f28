import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig, regionCountries, type Region } from '@svc/config';
import { signCompactJws } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { newId, regionSegmentOf } from '@svc/ids';
import { SigningKeyStore } from '@svc/key-store';
import type { OutboxWriter } from '@svc/persistence';
import { decodeJwt } from 'jose';
import type { EntityManager } from 'typeorm';
import type { DecisionSession, QuorumType } from '../decisions/decision';
import { DecisionsRepository } from '../decisions/decisions.repository';
import { aggregate } from '../decisions/quorum';
import { tokenDigest } from '../decisions/session-token';
import { SigningOutcomes, type SigningOutcomeHandler } from '../decisions/signing-outcomes';
import { GATEWAY_OUTBOX } from '../tokens';
import {
  OPEN_AGREEMENT_STATUSES,
  PARTY_REFERENCE,
  SIGNATURE_RECEIPT_TYP,
  VOTE_OF,
  statusAfter,
  type Agreement,
  type AgreementDocument,
  type AgreementStatus,
  type SignatureReceiptClaims,
  type SigningOutcome,
} from './agreement';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import { enqueueDevicePush } from '../devices/device-push-queue';

/** What a signer's session shows and needs: the document, the party and the agreement's quorum. */
export interface SigningRequest {
  agreementId: string;
  partyId: string;
  applicationId: string;
  personId: string;
  role: string;
  title: string;
  document: AgreementDocument;
  quorumType: QuorumType;
  required: number;
  deadline: Date;
}

/** A signing outcome handed to the agreement's home region (from this region or the signer's). */
export interface PartyOutcome {
  agreementId: string;
  partyId: string;
  outcome: SigningOutcome;
  receiptJws: string;
  counterProposal: Record<string, unknown> | null;
  decidedAt: Date;
}

/** Largest text shown inline on the signing page, in characters. */
const SHOWN_TEXT_CHARS = 100_000;

/** The application's reference of a party's signing session. */
export function partyReference(agreementId: string, partyId: string): string {
  return `${agreementId}/${partyId}`;
}

/**
 * The signing side of agreements: each signer's `signature_request` session (opened in the
 * signer's home region), the receipt of each outcome (an Ed25519 JWS by the region where the
 * signer answered), and the agreement's quorum, decided exactly once.
 *
 * Invariant: an agreement's votes are recorded only in its home region, each under the
 * agreement's row lock, in one transaction with the party's outcome, the agreement's new status
 * and their events. The status is read under that lock, so of concurrent votes exactly one sees
 * the quorum reached and publishes `agreement.activated`; every vote after it sees a final
 * status and is refused (409 `agreement_decided`), which rolls back the signer's session too —
 * in the signer's region when that is another one, because the outcome is handed over by
 * request/reply inside the signer region's transaction.
 */
@Injectable()
export class AgreementSigning implements SigningOutcomeHandler, OnModuleInit {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly sessions: DecisionsRepository,
    private readonly outcomes: SigningOutcomes,
    private readonly keys: SigningKeyStore,
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {}

  onModuleInit(): void {
    this.outcomes.register(this);
  }

  /** Opens the signer's `signature_request` session here (the signer's home region); returns its digest and URL. */
  async openSession(manager: EntityManager, request: SigningRequest): Promise<{ tokenSha256: string; decisionUrl: string }> {
    const now = this.clock.now();
    const sessionToken = newId('decision_session_token');
    const tokenSha256 = tokenDigest(sessionToken);
    const decisionUrl = `${this.config.publicBaseUrl}/decisions/${sessionToken}`;
    const text = request.document.mediaType.startsWith('text/') ? request.document.content.toString('utf8').slice(0, SHOWN_TEXT_CHARS) : undefined;
    await this.sessions.insert(
      manager,
      {
        tokenSha256,
        sessionToken,
        applicationId: request.applicationId,
        kind: 'signature_request',
        status: 'pending',
        flowId: null,
        flowVersion: null,
        consentPath: null,
        purposes: [],
        deliveryMode: 'direct',
        embedOrigin: null,
        principalId: request.personId,
        principalBinding: 'api_token',
        triggerType: null,
        reference: partyReference(request.agreementId, request.partyId),
        quorumType: 'all',
        quorumRequired: 1,
        participants: [request.personId],
        proposal: {
          agreement: request.title,
          role: request.role,
          document_sha256: request.document.sha256,
          media_type: request.document.mediaType,
          size_bytes: request.document.sizeBytes,
          ...(text !== undefined ? { document: text } : {}),
          quorum: { type: request.quorumType, required: request.required },
        },
        decisionUrl,
        deadline: request.deadline,
        createdVia: 'decisions',
      },
      now,
    );
    // The signer's linked phones hear of it by Web Push once this commits (the inbox lists it anyway).
    await enqueueDevicePush(manager, { personId: request.personId, type: 'signature_requested', reference: request.agreementId, at: now });
    return { tokenSha256, decisionUrl };
  }

  requiresSignIn(session: DecisionSession): boolean {
    return PARTY_REFERENCE.test(session.reference ?? '') && (session.principalId ?? '').startsWith('usr_');
  }

  /** A party's signing session resolved: sign its receipt and record it where the agreement lives. */
  async onResolved(manager: EntityManager, session: DecisionSession, now: Date): Promise<boolean> {
    const match = PARTY_REFERENCE.exec(session.reference ?? '');
    if (!match) return false;
    const [, agreementId, partyId] = match as unknown as [string, string, string];
    const outcome = session.status as SigningOutcome;
    const proposal = session.proposal ?? {};
    const counterProposal = outcome === 'countered' ? session.counterProposal : null;
    if (regionSegmentOf(agreementId) === this.config.REGION) {
      const agreement = await this.agreements.find(agreementId, { manager, lock: true });
      if (!agreement) throw agreementError('agreement_not_found', 'The agreement of this signing decision is gone');
      // A signer who let their deadline pass after the outcome changes nothing: their session just closes.
      if (outcome === 'expired' && !OPEN_AGREEMENT_STATUSES.includes(agreement.status)) return true;
      const party = (await this.agreements.parties(agreementId, manager)).find((p) => p.id === partyId);
      if (!party) throw agreementError('agreement_not_found', 'The party of this signing decision is gone');
      const receiptJws = await this.signReceipt({
        agreement_id: agreementId,
        party_id: partyId,
        role: party.role,
        signer: party.personId,
        document_sha256: agreement.documentSha256,
        outcome,
        decided_at: now.toISOString(),
        quorum: { type: agreement.quorumType, required: agreement.quorumRequired },
        ...(counterProposal ? { counter_proposal: counterProposal } : {}),
      });
      await this.recordOutcome(manager, { agreementId, partyId, outcome, receiptJws, counterProposal, decidedAt: now }, agreement);
      return true;
    }
    // The signer answered in their home region: the receipt is made here, and only it and the
    // outcome cross to the agreement's region, after the crossing is in the transfer register.
    const receiptJws = await this.signReceipt({
      agreement_id: agreementId,
      party_id: partyId,
      role: String(proposal['role'] ?? ''),
      signer: session.principalId ?? '',
      document_sha256: String(proposal['document_sha256'] ?? ''),
      outcome,
      decided_at: now.toISOString(),
      quorum: this.quorumOf(proposal),
      ...(counterProposal ? { counter_proposal: counterProposal } : {}),
    });
    const home = regionSegmentOf(agreementId) as Region;
    await this.rpc.call('residency.record_transfer', {
      applicationId: session.applicationId,
      dataCategories: ['identifiers', 'decision_sessions'],
      toCountry: regionCountries(this.config)[home],
      recipient: `agreement region ${home}`,
      purpose: 'a party signs an agreement homed in another region: the outcome and its receipt (naming the signer) go to the agreement',
      lawfulBasis: 'derogation',
      derogationArticle: '49(1)(b)',
      transferCase: 'cross_border_signing',
      reference: `agreement-signature:${partyReference(agreementId, partyId)}:${outcome}`,
      recordIds: [],
    });
    try {
      await this.rpc.inRegion(home).call('gateway.record_agreement_signature', {
        agreementId,
        partyId,
        outcome,
        receiptJws,
        counterProposalJson: counterProposal ? JSON.stringify(counterProposal) : '',
        decidedAt: timestampFromDate(now),
      });
    } catch (error) {
      // An expiry after the agreement's outcome only closes the session here.
      if (outcome === 'expired' && isDomainError(error) && error.code === 'agreement_decided') return true;
      throw error;
    }
    return true;
  }

  /**
   * Records a party's outcome in the agreement's home region (this one), under the agreement's
   * row lock, and decides the quorum once. Refuses a vote on a decided agreement (409
   * `agreement_decided`); a second answer of the same party is refused too, unless it repeats the
   * recorded outcome (a retried hand-over), which answers the status unchanged.
   */
  async recordOutcome(manager: EntityManager, input: PartyOutcome, locked?: Agreement): Promise<AgreementStatus> {
    const agreement = locked ?? (await this.agreements.find(input.agreementId, { manager, lock: true }));
    if (!agreement) throw agreementError('agreement_not_found', 'Agreement not found');
    const parties = await this.agreements.parties(agreement.id, manager);
    const party = parties.find((p) => p.id === input.partyId);
    if (!party) throw agreementError('agreement_not_found', 'Party not found');
    if (party.outcome !== null) {
      if (party.outcome === input.outcome) return agreement.status;
      throw agreementError('party_already_answered', 'This party already answered the agreement', { party_id: party.id, outcome: party.outcome });
    }
    if (!OPEN_AGREEMENT_STATUSES.includes(agreement.status)) {
      throw agreementError('agreement_decided', `The agreement is already ${agreement.status}: this answer comes too late`, { status: agreement.status });
    }
    this.checkReceipt(input, agreement.documentSha256);
    const vote = VOTE_OF[input.outcome];
    if (!(await this.agreements.insertVote(manager, agreement.id, party.id, vote, input.outcome, input.decidedAt))) {
      throw agreementError('party_already_answered', 'This party already answered the agreement', { party_id: party.id });
    }
    await this.agreements.recordPartyOutcome(manager, party.id, input);
    const tally = await this.agreements.tally(manager, agreement.id);
    const decided = aggregate(tally, parties.length, agreement.quorumRequired);
    const status = statusAfter(tally, parties.length, agreement.quorumRequired, decided);
    const now = this.clock.now();
    const updated = await this.agreements.setStatus(manager, agreement.id, status, decided !== undefined ? now : null, now);
    const context = { applicationId: agreement.applicationId, occurredAt: input.decidedAt };
    await this.outbox.add(
      manager,
      `signature.${input.outcome}`,
      {
        sessionToken: '',
        reference: partyReference(agreement.id, party.id),
        principalId: party.personId,
        outcome: input.outcome,
        quorumType: agreement.quorumType,
        required: agreement.quorumRequired,
        signatures: tally.yes,
        declines: tally.no,
        counters: tally.counter,
        counterProposalJson: input.counterProposal ? JSON.stringify(input.counterProposal) : '',
        decidedAt: timestampFromDate(input.decidedAt),
        agreementId: agreement.id,
        partyId: party.id,
        receiptJws: input.receiptJws,
        documentSha256: agreement.documentSha256,
      },
      context,
    );
    if (decided !== undefined) await this.addDecidedEvent(manager, updated, tally, parties.length, now);
    return status;
  }

  /** Publishes `agreement.<status>` for a final status (activated, declined, expired, withdrawn). */
  async addDecidedEvent(manager: EntityManager, agreement: Agreement, tally: { yes: number; no: number; counter: number }, parties: number, at: Date): Promise<void> {
    const type = agreement.status === 'active' ? 'agreement.activated' : (`agreement.${agreement.status}` as 'agreement.declined' | 'agreement.expired' | 'agreement.withdrawn');
    await this.outbox.add(
      manager,
      type,
      {
        agreementId: agreement.id,
        status: agreement.status === 'active' ? 'activated' : agreement.status,
        documentSha256: agreement.documentSha256,
        quorumType: agreement.quorumType,
        required: agreement.quorumRequired,
        signatures: tally.yes,
        declines: tally.no,
        counters: tally.counter,
        parties,
        decidedAt: timestampFromDate(at),
      },
      { applicationId: agreement.applicationId, occurredAt: at },
    );
  }

  /** Signs one outcome's receipt with this region's active key. */
  private async signReceipt(claims: Omit<SignatureReceiptClaims, 'iss' | 'iat'>): Promise<string> {
    const key = await this.keys.activeKey();
    const now = this.clock.now();
    const payload: SignatureReceiptClaims = { iss: this.config.publicBaseUrl, iat: Math.floor(now.getTime() / 1000), ...claims };
    return signCompactJws(key, payload as unknown as Record<string, unknown>, { typ: SIGNATURE_RECEIPT_TYP });
  }

  /** A handed-over receipt must be about this agreement, party, document and outcome. */
  private checkReceipt(input: PartyOutcome, documentSha256: string): void {
    let claims: Record<string, unknown>;
    try {
      claims = decodeJwt(input.receiptJws);
    } catch {
      throw agreementError('agreement_not_found', 'The receipt of this outcome is unreadable');
    }
    if (claims['agreement_id'] !== input.agreementId || claims['party_id'] !== input.partyId || claims['document_sha256'] !== documentSha256 || claims['outcome'] !== input.outcome) {
      throw agreementError('agreement_not_found', 'The receipt of this outcome is about another agreement, party, document or outcome');
    }
  }

  private quorumOf(proposal: Record<string, unknown>): { type: QuorumType; required: number } {
    const quorum = (proposal['quorum'] ?? {}) as { type?: QuorumType; required?: number };
    return { type: quorum.type ?? 'all', required: quorum.required ?? 1 };
  }
}
