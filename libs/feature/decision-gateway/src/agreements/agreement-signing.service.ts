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
import { SigningOutcomes, type SignerProof, type SigningOutcomeHandler } from '../decisions/signing-outcomes';
import { GATEWAY_OUTBOX } from '../tokens';
import {
  OPEN_AGREEMENT_STATUSES,
  OPEN_AMENDMENT_STATUSES,
  PARTY_REFERENCE,
  amendmentStatusAfter,
  SIGNATURE_RECEIPT_TYP,
  VOTE_OF,
  statusAfter,
  type Agreement,
  type AgreementDocument,
  type AgreementStatus,
  type PasskeyAssertion,
  type SignatureReceiptClaims,
  type SigningOutcome,
} from './agreement';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import { SignerPasskeys, type SignatureChallengeInput } from './signer-passkeys';
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
  /** Set for a vote on an amendment (`amd_…`): `document` is then the amendment's. */
  amendmentId?: string;
}

/** A signing outcome handed to the agreement's home region (from this region or the signer's). */
export interface PartyOutcome {
  agreementId: string;
  partyId: string;
  outcome: SigningOutcome;
  receiptJws: string;
  counterProposal: Record<string, unknown> | null;
  decidedAt: Date;
  /** Set for a vote on an amendment. */
  amendmentId?: string;
}

/** Largest text shown inline on the signing page, in characters. */
const SHOWN_TEXT_CHARS = 100_000;

/** The application's reference of a party's signing session. */
export function partyReference(agreementId: string, partyId: string, amendmentId?: string): string {
  return amendmentId ? `${agreementId}/${partyId}/${amendmentId}` : `${agreementId}/${partyId}`;
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
    private readonly passkeys: SignerPasskeys,
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
    const text = request.document.mediaType.startsWith('text/')
      ? request.document.content.toString('utf8').slice(0, SHOWN_TEXT_CHARS)
      : undefined;
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
        reference: partyReference(request.agreementId, request.partyId, request.amendmentId),
        quorumType: 'all',
        quorumRequired: 1,
        participants: [request.personId],
        proposal: {
          agreement: request.title,
          ...(request.amendmentId ? { amendment_id: request.amendmentId } : {}),
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

  /** The signature a signer's passkey signs for: this session's party of its agreement, over its document. */
  private challengeOf(session: DecisionSession): SignatureChallengeInput | null {
    const match = PARTY_REFERENCE.exec(session.reference ?? '');
    const digest = (session.proposal ?? {})['document_sha256'];
    if (!match || typeof digest !== 'string' || !session.principalId) return null;
    return {
      agreement_id: match[1]!,
      party_id: match[2]!,
      document_sha256: digest,
      signer: session.principalId,
      ...(match[3] ? { amendment_id: match[3] } : {}),
    };
  }

  /**
   * A signer who has a passkey signs with it: the assertion over this signature's challenge is
   * verified against their registered credential and bound into the receipt. Declining and
   * countering need the sign-in only.
   */
  async proveSigner(
    manager: EntityManager,
    session: DecisionSession,
    vote: 'yes' | 'no' | 'counter',
    assertion: Record<string, unknown> | undefined,
  ): Promise<SignerProof> {
    const challenge = this.challengeOf(session);
    if (vote !== 'yes' || !challenge) return { method: 'session' };
    const bound = await this.passkeys.verify(manager, challenge.signer, challenge, assertion);
    return bound ? { method: 'passkey', assertion: bound as unknown as Record<string, unknown> } : { method: 'session' };
  }

  async passkeyOptions(session: DecisionSession): Promise<Record<string, unknown> | null> {
    const challenge = this.challengeOf(session);
    if (!challenge) return null;
    return (await this.passkeys.options(challenge.signer, challenge)) as unknown as Record<string, unknown> | null;
  }

  /** A party's signing session resolved: sign its receipt and record it where the agreement lives. */
  async onResolved(manager: EntityManager, session: DecisionSession, now: Date, proof?: SignerProof): Promise<boolean> {
    const match = PARTY_REFERENCE.exec(session.reference ?? '');
    if (!match) return false;
    const [, agreementId, partyId, amendmentId] = match as unknown as [string, string, string, string | undefined];
    const outcome = session.status as SigningOutcome;
    const amendment = amendmentId ? { amendment_id: amendmentId } : {};
    const proposal = session.proposal ?? {};
    const counterProposal = outcome === 'countered' ? session.counterProposal : null;
    // How the signer proved it was them; an expiry is nobody's answer.
    const signerProof =
      outcome === 'expired'
        ? {}
        : {
            signer_authentication: proof?.method ?? 'session',
            ...(proof?.method === 'passkey' && proof.assertion
              ? { passkey_assertion: proof.assertion as unknown as PasskeyAssertion }
              : {}),
          };
    if (regionSegmentOf(agreementId) === this.config.REGION) {
      const agreement = await this.agreements.find(agreementId, { manager, lock: true });
      if (!agreement) throw agreementError('agreement_not_found', 'The agreement of this signing decision is gone');
      const voted = amendmentId ? await this.agreements.findAmendment(amendmentId, manager) : undefined;
      if (amendmentId && (!voted || voted.agreementId !== agreementId))
        throw agreementError('amendment_not_found', 'The amendment of this signing decision is gone');
      // A signer who let their deadline pass after the outcome changes nothing: their session just closes.
      if (
        outcome === 'expired' &&
        (voted ? !OPEN_AMENDMENT_STATUSES.includes(voted.status) : !OPEN_AGREEMENT_STATUSES.includes(agreement.status))
      )
        return true;
      const party = (await this.agreements.parties(agreementId, manager)).find((p) => p.id === partyId);
      if (!party) throw agreementError('agreement_not_found', 'The party of this signing decision is gone');
      const receiptJws = await this.signReceipt({
        agreement_id: agreementId,
        party_id: partyId,
        role: party.role,
        signer: party.personId,
        document_sha256: voted ? voted.documentSha256 : agreement.documentSha256,
        outcome,
        decided_at: now.toISOString(),
        quorum: { type: agreement.quorumType, required: agreement.quorumRequired },
        ...(counterProposal ? { counter_proposal: counterProposal } : {}),
        ...amendment,
        ...signerProof,
      });
      await this.recordOutcome(
        manager,
        { agreementId, partyId, outcome, receiptJws, counterProposal, decidedAt: now, ...(amendmentId ? { amendmentId } : {}) },
        agreement,
      );
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
      ...amendment,
      ...signerProof,
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
      reference: `agreement-signature:${partyReference(agreementId, partyId, amendmentId)}:${outcome}`,
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
        amendmentId: amendmentId ?? '',
      });
    } catch (error) {
      // An expiry after the agreement's (or amendment's) outcome only closes the session here.
      if (outcome === 'expired' && isDomainError(error) && (error.code === 'agreement_decided' || error.code === 'amendment_decided'))
        return true;
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
    if (input.amendmentId) return this.recordAmendmentOutcome(manager, { ...input, amendmentId: input.amendmentId }, agreement);
    const parties = await this.agreements.parties(agreement.id, manager);
    const party = parties.find((p) => p.id === input.partyId);
    if (!party) throw agreementError('agreement_not_found', 'Party not found');
    if (party.outcome !== null) {
      if (party.outcome === input.outcome) return agreement.status;
      throw agreementError('party_already_answered', 'This party already answered the agreement', {
        party_id: party.id,
        outcome: party.outcome,
      });
    }
    if (!OPEN_AGREEMENT_STATUSES.includes(agreement.status)) {
      throw agreementError('agreement_decided', `The agreement is already ${agreement.status}: this answer comes too late`, {
        status: agreement.status,
      });
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
    await this.publishSignature(manager, agreement, party, input, tally, agreement.documentSha256);
    if (decided !== undefined) await this.addDecidedEvent(manager, updated, tally, parties.length, now);
    return status;
  }

  /**
   * A party's answer as `signature.<outcome>` (on the agreement, or on one of its amendments) with
   * the tally so far, and the line of the agreement's collaboration history.
   */
  private async publishSignature(
    manager: EntityManager,
    agreement: Agreement,
    party: { id: string; personId: string },
    input: PartyOutcome,
    tally: { yes: number; no: number; counter: number },
    documentSha256: string,
    amendmentId?: string,
  ): Promise<void> {
    await this.outbox.add(
      manager,
      `signature.${input.outcome}`,
      {
        sessionToken: '',
        reference: partyReference(agreement.id, party.id, amendmentId),
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
        documentSha256,
        ...(amendmentId !== undefined ? { amendmentId } : {}),
      },
      { applicationId: agreement.applicationId, occurredAt: input.decidedAt },
    );
    await this.agreements.addCollaborationEvent(manager, agreement.id, `signature.${input.outcome}`, party.id, input.decidedAt);
  }

  /**
   * Records a party's vote on an amendment, in the agreement's home region under the agreement's
   * row lock (the same lock as its signatures), and decides the amendment once under the
   * agreement's quorum: `adopted` makes the amendment's document the agreement's
   * (`agreement.amended`); `rejected` / `expired` leave it (`agreement.amendment_rejected`). A
   * vote after the amendment's outcome is refused (409 `amendment_decided`).
   */
  private async recordAmendmentOutcome(
    manager: EntityManager,
    input: PartyOutcome & { amendmentId: string },
    agreement: Agreement,
  ): Promise<AgreementStatus> {
    const amendment = await this.agreements.findAmendment(input.amendmentId, manager);
    if (!amendment || amendment.agreementId !== agreement.id) throw agreementError('amendment_not_found', 'Amendment not found');
    const parties = await this.agreements.parties(agreement.id, manager);
    const party = parties.find((p) => p.id === input.partyId);
    const answer = (await this.agreements.amendmentPartiesOf([amendment.id], manager))
      .get(amendment.id)
      ?.find((a) => a.partyId === input.partyId);
    if (!party || !answer) throw agreementError('amendment_not_found', 'Party not found');
    if (answer.outcome !== null) {
      if (answer.outcome === input.outcome) return agreement.status;
      throw agreementError('party_already_answered', 'This party already answered the amendment', {
        party_id: party.id,
        outcome: answer.outcome,
      });
    }
    if (!OPEN_AMENDMENT_STATUSES.includes(amendment.status)) {
      throw agreementError('amendment_decided', `The amendment is already ${amendment.status}: this answer comes too late`, {
        status: amendment.status,
      });
    }
    this.checkReceipt(input, amendment.documentSha256);
    if (!(await this.agreements.recordAmendmentVote(manager, amendment.id, party.id, VOTE_OF[input.outcome], input))) {
      throw agreementError('party_already_answered', 'This party already answered the amendment', { party_id: party.id });
    }
    const tally = await this.agreements.amendmentTally(manager, amendment.id);
    const decided = aggregate(tally, parties.length, agreement.quorumRequired);
    const status = amendmentStatusAfter(tally, decided);
    const now = this.clock.now();
    const updated = await this.agreements.setAmendmentStatus(manager, amendment.id, status, decided !== undefined ? now : null, now);
    await this.publishSignature(manager, agreement, party, input, tally, amendment.documentSha256, amendment.id);
    if (decided === undefined) return agreement.status;
    if (updated.status === 'adopted') await this.agreements.setCurrentDocument(manager, agreement.id, amendment.documentSha256, now);
    const type = updated.status === 'adopted' ? 'agreement.amended' : 'agreement.amendment_rejected';
    await this.outbox.add(
      manager,
      type,
      {
        agreementId: agreement.id,
        status: updated.status === 'adopted' ? 'amended' : `amendment_${updated.status}`,
        documentSha256: amendment.documentSha256,
        quorumType: agreement.quorumType,
        required: agreement.quorumRequired,
        signatures: tally.yes,
        declines: tally.no,
        counters: tally.counter,
        parties: parties.length,
        decidedAt: timestampFromDate(now),
        amendmentId: amendment.id,
        amendmentNumber: amendment.number,
        previousDocumentSha256: amendment.previousDocumentSha256,
      },
      { applicationId: agreement.applicationId, occurredAt: now },
    );
    await this.agreements.addCollaborationEvent(manager, agreement.id, type, agreement.id, now);
    return agreement.status;
  }

  /**
   * Publishes `agreement.<status>` for a final status (activated, declined, expired, withdrawn),
   * and writes it into the history of the collaborations holding the agreement (actor: the
   * application for a withdrawal, else the agreement itself: its quorum or deadline decided).
   */
  async addDecidedEvent(
    manager: EntityManager,
    agreement: Agreement,
    tally: { yes: number; no: number; counter: number },
    parties: number,
    at: Date,
  ): Promise<void> {
    const type =
      agreement.status === 'active'
        ? 'agreement.activated'
        : (`agreement.${agreement.status}` as 'agreement.declined' | 'agreement.expired' | 'agreement.withdrawn');
    await this.agreements.addCollaborationEvent(
      manager,
      agreement.id,
      type,
      agreement.status === 'withdrawn' ? agreement.applicationId : agreement.id,
      at,
    );
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
    if (
      claims['agreement_id'] !== input.agreementId ||
      claims['party_id'] !== input.partyId ||
      claims['document_sha256'] !== documentSha256 ||
      claims['outcome'] !== input.outcome ||
      (claims['amendment_id'] ?? undefined) !== input.amendmentId
    ) {
      throw agreementError('agreement_not_found', 'The receipt of this outcome is about another agreement, party, document or outcome');
    }
  }

  private quorumOf(proposal: Record<string, unknown>): { type: QuorumType; required: number } {
    const quorum = (proposal['quorum'] ?? {}) as { type?: QuorumType; required?: number };
    return { type: quorum.type ?? 'all', required: quorum.required ?? 1 };
  }
}
