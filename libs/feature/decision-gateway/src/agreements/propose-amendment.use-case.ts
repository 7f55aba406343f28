import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { newId } from '@svc/ids';
import { DEFAULT_TTL_SECONDS } from '../decisions/decision';
import {
  MAX_DOCUMENT_BYTES,
  type Agreement,
  type AgreementDocument,
  type AgreementParty,
  type Amendment,
  type AmendmentParty,
} from './agreement';
import { AgreementSigning } from './agreement-signing.service';
import type { ProposeAmendmentBody } from './agreements.dto';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import { CreateAgreement } from './create-agreement.use-case';

/** A proposed amendment and each party's voting session. */
export interface ProposedAmendment {
  amendment: Amendment;
  parties: AmendmentParty[];
}

/**
 * Proposes an amendment of an active agreement: a new document, voted by every party of the
 * agreement under its quorum, each on a `signature_request` session in their home region (opened
 * there over `gateway.open_agreement_signing` first, as at creation). At most one amendment is
 * open at a time (409 `amendment_open`); only an active agreement is amended (409
 * `agreement_not_active`). Checked again under the agreement's row lock when written.
 */
@Injectable()
export class ProposeAmendment {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly signing: AgreementSigning,
    private readonly creator: CreateAgreement,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async execute(agreement: Agreement, parties: AgreementParty[], body: ProposeAmendmentBody): Promise<ProposedAmendment> {
    this.checkAmendable(agreement, await this.agreements.amendments(agreement.id));
    const content = Buffer.from(body.document.content_base64, 'base64');
    if (content.length === 0 || content.length > MAX_DOCUMENT_BYTES) {
      throw agreementError('document_invalid', `The document must be 1 byte to ${MAX_DOCUMENT_BYTES} bytes`, {
        field: 'document.content_base64',
      });
    }
    const document: AgreementDocument = {
      sha256: createHash('sha256').update(content).digest('hex'),
      content,
      mediaType: body.document.media_type,
      sizeBytes: content.length,
    };
    const current = agreement.currentDocumentSha256 ?? agreement.documentSha256;
    if (document.sha256 === current)
      throw agreementError('document_invalid', 'The amendment’s document is the one in force', { field: 'document.content_base64' });
    const now = this.clock.now();
    const amendment: Amendment = {
      id: newId('agreement_amendment'),
      agreementId: agreement.id,
      number: 0,
      documentSha256: document.sha256,
      previousDocumentSha256: current,
      status: 'pending',
      deadline: new Date(now.getTime() + (body.ttl_seconds ?? DEFAULT_TTL_SECONDS.signature_request) * 1000),
      createdAt: now,
      updatedAt: now,
      decidedAt: null,
    };
    const request = (party: AgreementParty) => ({
      agreementId: agreement.id,
      partyId: party.id,
      applicationId: agreement.applicationId,
      personId: party.personId,
      role: party.role,
      title: agreement.title,
      document,
      quorumType: agreement.quorumType,
      required: agreement.quorumRequired,
      deadline: amendment.deadline,
      amendmentId: amendment.id,
    });
    const answers: AmendmentParty[] = parties.map((p) => ({
      amendmentId: amendment.id,
      partyId: p.id,
      sessionTokenSha256: null,
      decisionUrl: '',
      outcome: null,
      receiptJws: null,
      decidedAt: null,
    }));
    // Signers homed elsewhere first: their region opens their session.
    for (const [index, party] of parties.entries()) {
      if (party.homeRegion !== this.config.REGION)
        answers[index]!.decisionUrl = await this.creator.openElsewhere(party.homeRegion, request(party), party.position);
    }
    await this.agreements.transaction(async (manager) => {
      const locked = await this.agreements.find(agreement.id, { manager, lock: true });
      if (!locked) throw agreementError('agreement_not_found', 'Agreement not found');
      const earlier = await this.agreements.amendments(agreement.id, { manager });
      this.checkAmendable(locked, earlier);
      if ((locked.currentDocumentSha256 ?? locked.documentSha256) !== current)
        throw agreementError('amendment_open', 'The agreement was amended meanwhile: propose again');
      amendment.number = earlier.length + 1;
      await this.agreements.putDocument(manager, document, now);
      await this.agreements.insertAmendment(manager, amendment);
      for (const [index, party] of parties.entries()) {
        const answer = answers[index]!;
        if (party.homeRegion === this.config.REGION) {
          const opened = await this.signing.openSession(manager, request(party));
          answer.sessionTokenSha256 = opened.tokenSha256;
          answer.decisionUrl = opened.decisionUrl;
        }
        await this.agreements.insertAmendmentParty(manager, answer);
      }
      await this.agreements.addCollaborationEvent(manager, agreement.id, 'agreement.amendment_proposed', agreement.applicationId, now);
    });
    return { amendment, parties: answers };
  }

  private checkAmendable(agreement: Agreement, amendments: Amendment[]): void {
    if (agreement.status !== 'active')
      throw agreementError('agreement_not_active', `Only an active agreement can be amended; this one is ${agreement.status}`, {
        status: agreement.status,
      });
    const open = amendments.find((a) => a.status === 'pending' || a.status === 'partially_signed');
    if (open) throw agreementError('amendment_open', 'Another amendment of this agreement is still open', { amendment_id: open.id });
  }
}
