import { createHash } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { isIdOf, regionSegmentOf } from '@svc/ids';
import type { QuorumType } from '../decisions/decision';
import { PeopleRepository } from '../people/people.repository';
import { DOCUMENT_MEDIA_TYPES, MAX_DOCUMENT_BYTES, SIGNING_OUTCOMES, type SigningOutcome } from './agreement';
import { AgreementSigning } from './agreement-signing.service';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';

/**
 * The two crossings of cross-border signing, over request/reply between regions' decision-gateways:
 * the agreement's region asks the signer's region to open the signer's session
 * (`gateway.open_agreement_signing`), and the signer's region hands back the outcome and its
 * receipt (`gateway.record_agreement_signature`). Nothing else of the signer crosses.
 */
@Controller()
export class AgreementsRpcHandlers {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly signing: AgreementSigning,
    private readonly people: PeopleRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  /** In the signer's home region: checks the person is homed here and opens their session, once per party. */
  @RpcHandler('gateway.open_agreement_signing')
  async openAgreementSigning(
    request: RpcRequest<'gateway.open_agreement_signing'>,
  ): Promise<RpcReplyInit<'gateway.open_agreement_signing'>> {
    if (
      !isIdOf('agreement', request.agreementId) ||
      !isIdOf('agreement_party', request.partyId) ||
      regionSegmentOf(request.agreementId) === this.config.REGION
    ) {
      throw agreementError('agreement_not_found', 'Not an agreement of another region');
    }
    if (
      !isIdOf('person', request.personId) ||
      regionSegmentOf(request.personId) !== this.config.REGION ||
      !(await this.people.findPerson(request.personId))
    ) {
      throw agreementError('party_not_found', 'No person with this id is homed in this region');
    }
    const content = Buffer.from(request.document);
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (
      sha256 !== request.documentSha256 ||
      content.length === 0 ||
      content.length > MAX_DOCUMENT_BYTES ||
      !(DOCUMENT_MEDIA_TYPES as readonly string[]).includes(request.mediaType)
    ) {
      throw agreementError('document_invalid', 'The document does not match its digest or is not signable');
    }
    if (request.amendmentId !== '' && !isIdOf('agreement_amendment', request.amendmentId))
      throw agreementError('amendment_not_found', 'Not an amendment id');
    const existing = await this.agreements.findRemoteSigning(request.agreementId, request.partyId, request.amendmentId);
    if (existing) return { decisionUrl: existing.decisionUrl };
    const now = this.clock.now();
    const document = { sha256, content, mediaType: request.mediaType, sizeBytes: content.length };
    const decisionUrl = await this.agreements.transaction(async (manager) => {
      await this.agreements.putDocument(manager, document, now);
      const opened = await this.signing.openSession(manager, {
        agreementId: request.agreementId,
        partyId: request.partyId,
        applicationId: request.applicationId,
        personId: request.personId,
        role: request.role,
        title: request.title,
        document,
        quorumType: request.quorumType as QuorumType,
        required: request.required,
        deadline: request.deadline ? timestampDate(request.deadline) : now,
        ...(request.amendmentId ? { amendmentId: request.amendmentId } : {}),
      });
      await this.agreements.insertRemoteSigning(
        manager,
        request.agreementId,
        request.partyId,
        opened.tokenSha256,
        opened.decisionUrl,
        now,
        request.amendmentId,
      );
      return opened.decisionUrl;
    });
    return { decisionUrl };
  }

  /** In the agreement's home region: records a party's outcome answered in the signer's region (refused once decided). */
  @RpcHandler('gateway.record_agreement_signature')
  async recordAgreementSignature(
    request: RpcRequest<'gateway.record_agreement_signature'>,
  ): Promise<RpcReplyInit<'gateway.record_agreement_signature'>> {
    if (!isIdOf('agreement', request.agreementId) || regionSegmentOf(request.agreementId) !== this.config.REGION)
      throw agreementError('agreement_not_found', 'Not an agreement of this region');
    if (!(SIGNING_OUTCOMES as readonly string[]).includes(request.outcome))
      throw agreementError('agreement_not_found', 'Unknown signing outcome');
    const status = await this.agreements.transaction((manager) =>
      this.signing.recordOutcome(manager, {
        agreementId: request.agreementId,
        partyId: request.partyId,
        outcome: request.outcome as SigningOutcome,
        receiptJws: request.receiptJws,
        counterProposal: request.counterProposalJson ? (JSON.parse(request.counterProposalJson) as Record<string, unknown>) : null,
        decidedAt: request.decidedAt ? timestampDate(request.decidedAt) : this.clock.now(),
        ...(request.amendmentId ? { amendmentId: request.amendmentId } : {}),
      }),
    );
    return { agreementStatus: status };
  }
}
