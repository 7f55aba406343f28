import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig, isRegion } from '@svc/config';
import { newId, newRegionalId, regionSegmentOf, type IdRegion } from '@svc/ids';
import { DEFAULT_TTL_SECONDS } from '../decisions/decision';
import { requiredVotes } from '../decisions/quorum';
import { PeopleRepository } from '../people/people.repository';
import { MAX_DOCUMENT_BYTES, type Agreement, type AgreementDocument, type AgreementParty } from './agreement';
import { AgreementSigning } from './agreement-signing.service';
import type { CreateAgreementBody } from './agreements.dto';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import { RpcClient } from '@svc/bus';
import { isDomainError } from '@svc/errors';

/** What was created. A retry under the same Idempotency-Key is answered by the platform's store. */
export interface CreatedAgreement {
  agreement: Agreement;
  parties: AgreementParty[];
}

/**
 * Creates an agreement: the document stored once under its SHA-256, the parties with their roles,
 * the quorum, and one `signature_request` session per signer, opened in the signer's home region
 * (here, or there over request/reply `gateway.open_agreement_signing` before anything is written
 * here: a region that does not answer leaves nothing behind but, at worst, sessions there that
 * nothing points to and that expire).
 */
@Injectable()
export class CreateAgreement {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly signing: AgreementSigning,
    private readonly people: PeopleRepository,
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, body: CreateAgreementBody, options: { multiParty: boolean }): Promise<CreatedAgreement> {
    if (options.multiParty && body.parties.length < 2)
      throw agreementError('parties_too_few', 'A multi-party agreement needs at least two parties', { field: 'parties' });
    const seen = new Set<string>();
    body.parties.forEach((party, index) => {
      if (seen.has(party.person_id))
        throw agreementError('party_duplicate', 'A person can be a party only once', { field: `parties.${index}.person_id` });
      seen.add(party.person_id);
    });
    const quorumType = body.quorum?.type ?? 'all';
    if ((quorumType === 'threshold') !== (body.quorum?.threshold !== undefined)) {
      throw agreementError('quorum_invalid', 'quorum.threshold is required with type threshold and only then', {
        field: 'quorum.threshold',
      });
    }
    if (body.quorum?.threshold !== undefined && body.quorum.threshold > body.parties.length) {
      throw agreementError('quorum_invalid', 'quorum.threshold cannot exceed the number of parties', {
        field: 'quorum.threshold',
        parties: body.parties.length,
      });
    }
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
    const required = requiredVotes(quorumType, body.parties.length, body.quorum?.threshold);
    const now = this.clock.now();
    const agreement: Agreement = {
      id: newRegionalId('agreement', this.config.REGION as IdRegion),
      applicationId: principal.applicationId,
      title: body.title,
      documentSha256: document.sha256,
      quorumType,
      quorumThreshold: body.quorum?.threshold ?? null,
      quorumRequired: required,
      status: 'pending',
      deadline: new Date(now.getTime() + (body.ttl_seconds ?? DEFAULT_TTL_SECONDS.signature_request) * 1000),
      createdAt: now,
      updatedAt: now,
      decidedAt: null,
      currentDocumentSha256: null,
    };
    const parties: AgreementParty[] = body.parties.map((party, position) => ({
      id: newId('agreement_party'),
      agreementId: agreement.id,
      position,
      role: party.role,
      personId: party.person_id,
      homeRegion: regionSegmentOf(party.person_id) ?? this.config.REGION,
      sessionTokenSha256: null,
      decisionUrl: '',
      outcome: null,
      receiptJws: null,
      counterProposal: null,
      decidedAt: null,
    }));
    const request = (party: AgreementParty) => ({
      agreementId: agreement.id,
      partyId: party.id,
      applicationId: agreement.applicationId,
      personId: party.personId,
      role: party.role,
      title: agreement.title,
      document,
      quorumType,
      required,
      deadline: agreement.deadline,
    });

    // Signers homed elsewhere first: their region checks the person and opens their session.
    for (const party of parties) {
      if (party.homeRegion === this.config.REGION) {
        if (!(await this.people.findPerson(party.personId)))
          throw agreementError('party_not_found', 'No person with this id is homed in its region', {
            field: `parties.${party.position}.person_id`,
          });
        continue;
      }
      if (!isRegion(party.homeRegion))
        throw agreementError('party_not_found', 'No person with this id is homed in its region', {
          field: `parties.${party.position}.person_id`,
        });
      party.decisionUrl = await this.openElsewhere(party.homeRegion, request(party), party.position);
    }

    await this.agreements.transaction(async (manager) => {
      await this.agreements.putDocument(manager, document, now);
      await this.agreements.insertAgreement(manager, agreement);
      for (const party of parties) {
        if (party.homeRegion === this.config.REGION) {
          const opened = await this.signing.openSession(manager, request(party));
          party.sessionTokenSha256 = opened.tokenSha256;
          party.decisionUrl = opened.decisionUrl;
        }
        await this.agreements.insertParty(manager, party);
      }
    });
    return { agreement, parties };
  }

  /** Opens a party's signing session in the signer's home region (another one); its URL. */
  async openElsewhere(region: string, request: Parameters<AgreementSigning['openSession']>[1], position: number): Promise<string> {
    try {
      const reply = await this.rpc.inRegion(region).call('gateway.open_agreement_signing', {
        agreementId: request.agreementId,
        partyId: request.partyId,
        applicationId: request.applicationId,
        personId: request.personId,
        role: request.role,
        title: request.title,
        mediaType: request.document.mediaType,
        document: request.document.content,
        documentSha256: request.document.sha256,
        quorumType: request.quorumType,
        required: request.required,
        deadline: timestampFromDate(request.deadline),
        amendmentId: request.amendmentId ?? '',
      });
      return reply.decisionUrl;
    } catch (error) {
      if (isDomainError(error) && error.code === 'party_not_found')
        throw agreementError('party_not_found', 'No person with this id is homed in its region', {
          field: `parties.${position}.person_id`,
        });
      if (isDomainError(error) && error.kind !== 'unavailable') throw error;
      throw agreementError('signer_region_unavailable', `The home region of parties.${position} did not answer; nothing was created`, {
        field: `parties.${position}.person_id`,
        region,
      });
    }
  }
}
