import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { isIdOf } from '@svc/ids';
import { ApiDoc } from '@svc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { renderMyReceiptPage, type PersonReceipt } from './my-receipt-page';
import { peopleLocale } from './people-i18n';
import { PeopleRepository, type PersonLink } from './people.repository';
import { PersonSessionsService } from './person-sessions.service';

/**
 * The signed-in person's own consent receipt, the link of the receipt email. A receipt is the
 * person's when an application linked the record's subject reference to them; the record is found
 * among the linked applications' records (consent-records) and its frozen receipt read from
 * receipts, both over the bus with digests of the references only. Any other receipt id answers
 * the same 404 page as an unknown one.
 */
@Controller('people/receipts')
export class MyReceiptPageController {
  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly people: PeopleRepository,
    private readonly rpc: RpcClient,
    private readonly platform: PlatformConfig,
  ) {}

  @Get(':record_id')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary:
      "The signed-in person's own consent receipt page (HTML; the receipt email links here): issuer, digest, history and the signed document; 303 to sign-in when signed out, 404 page for a receipt that is not theirs",
    response: 'The receipt page',
    produces: 'text/html',
  })
  async page(@Req() request: FastifyRequest, @Param('record_id') recordId: string, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      return reply
        .code(303)
        .header('location', this.sessions.signInPath(`/people/receipts/${encodeURIComponent(recordId.slice(0, 100))}`))
        .header('cache-control', 'no-store')
        .send();
    const locale = peopleLocale(person.locale);
    const nonce = newNonce();
    const found = isIdOf('consent_record', recordId) ? await this.receiptOf(person.personId, recordId) : undefined;
    const html = renderMyReceiptPage({
      locale,
      nonce,
      applicationName: found?.applicationName,
      receipt: found?.receipt,
      withdrawalUrl: `${this.platform.publicBaseUrl}/people/account`,
    });
    return sendHtml(reply, found ? 200 : 404, html, contentSecurityPolicy(nonce, []), locale);
  }

  private async receiptOf(personId: string, recordId: string): Promise<{ applicationName: string; receipt: PersonReceipt } | undefined> {
    const links = await this.people.listLinksOfPerson(personId);
    for (const applicationId of new Set(links.map((l) => l.applicationId))) {
      const own = links.filter((l) => l.applicationId === applicationId);
      const request = {
        applicationId,
        personId,
        subjects: own.map(linkedSubject),
        action: 'export',
        purposes: [],
        recordIds: [],
        authorityIds: [],
        dataRequestId: '',
      };
      const records = await this.rpc.call('consent_records.person_data', request);
      if (!records.recordIds.includes(recordId)) continue;
      const receipts = await this.rpc.call('receipts.person_data', { ...request, recordIds: [recordId] });
      const items = JSON.parse(receipts.parts[0]?.itemsJson ?? '[]') as PersonReceipt[];
      const receipt = items.find((item) => item.record_id === recordId);
      return receipt ? { applicationName: own[0]?.applicationName ?? applicationId, receipt } : undefined;
    }
    return undefined;
  }
}

/** A person link as the services match it: the reference's SHA-256 (emails case-folded), never the reference. */
function linkedSubject(link: PersonLink): { applicationId: string; kind: string; valueSha256: string } {
  return {
    applicationId: link.applicationId,
    kind: link.subjectKind,
    valueSha256: sha256Hex(link.subjectKind === 'email' ? link.subjectValue.trim().toLowerCase() : link.subjectValue),
  };
}
