import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig, regionCountries } from '@svc/config';
import { canonicalJson, signCompactJws } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { isIdOf, newRegionalId } from '@svc/ids';
import { SigningKeyStore } from '@svc/key-store';
import { consentRecordsError } from '../consent-records.errors';
import { DataDeals } from './data-deals.service';
import type { CreateDataTransferBody } from './deals.dto';
import { DataTransfersRepository, type DataTransfer } from './data-transfers.repository';
import { encryptForRecipient } from './recipient-key';

/** `typ` of the person's transfer receipt. */
export const TRANSFER_RECEIPT_TYP = 'svc-transfer-receipt+jws';
/** Largest data one transfer sends, bytes of canonical JSON. */
export const MAX_TRANSFER_BYTES = 64 * 1024;

/**
 * Sends a person's data to a recipient named in an accepted data licence (Protect, secure
 * transfers), in this order, each step refusing before anything is sent:
 * 1. the offer is under the licence and its accepted deal covers the use now (state, term,
 *    withdrawal, expiry, purpose, data category, recipient: the use check of the deal);
 * 2. the licence gives the recipient a public encryption key;
 * 3. a recipient in another country: the crossing needs a lawful basis and is written to the
 *    transfer register (`residency.record_transfer`, case `licensed_recipient`, naming the deal's
 *    consent record, whose receipt then lists the country) before the data is encrypted;
 * 4. the data is encrypted to the key (compact JWE, A256GCM), the person's transfer receipt signed
 *    by the region key, and the row written (ciphertext and digests only).
 */
@Injectable()
export class SendDataTransfer {
  constructor(
    private readonly deals: DataDeals,
    private readonly transfers: DataTransfersRepository,
    private readonly rpc: RpcClient,
    private readonly keys: SigningKeyStore,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, licenseId: string, body: CreateDataTransferBody): Promise<DataTransfer> {
    const license = await this.deals.license(principal, licenseId);
    const { offer, refusal } = await this.deals.checkUse(principal, body.offer_id, {
      purpose: body.purpose,
      data_category: body.data_category,
      recipient: body.recipient,
    });
    if (offer.licenseId !== license.id)
      throw consentRecordsError('transfer_offer_not_under_license', 'The offer was not made under this licence', { field: 'offer_id' });
    if (refusal || !offer.recordId)
      throw consentRecordsError(
        'transfer_not_covered',
        `The accepted deal does not cover this transfer (${refusal ?? 'deal_not_accepted'})`,
        { reason: refusal ?? 'deal_not_accepted' },
      );
    const recipient = license.terms.recipients.find((r) => r.party_id === body.recipient);
    if (!recipient?.public_jwk)
      throw consentRecordsError('recipient_key_missing', 'The licence names no public key for this recipient', {
        recipient: body.recipient,
      });
    const plaintext = canonicalJson(body.data);
    if (Buffer.byteLength(plaintext) > MAX_TRANSFER_BYTES)
      throw new DomainError('unprocessable', 'validation_failed', `data must be at most ${MAX_TRANSFER_BYTES} bytes of JSON`, {
        field: 'data',
      });

    const id = newRegionalId('data_transfer', this.config.REGION);
    const here = regionCountries(this.config)[this.config.REGION];
    const country = recipient.country ?? here;
    let transferRegisterId: string | null = null;
    if (country !== here) {
      if (!body.lawful_basis)
        throw consentRecordsError(
          'lawful_basis_required',
          `The recipient receives the data in ${country}: a crossing needs a lawful basis`,
          { field: 'lawful_basis' },
        );
      const reply = await this.rpc.call('residency.record_transfer', {
        applicationId: principal.applicationId,
        dataCategories: ['identifiers', 'consent_records'],
        toCountry: country,
        recipient: `${recipient.name} (${recipient.party_id})`.slice(0, 200),
        purpose: `data licence ${license.id}: ${body.purpose} (${body.data_category})`.slice(0, 200),
        lawfulBasis: body.lawful_basis,
        derogationArticle: body.derogation_article ?? '',
        transferCase: 'licensed_recipient',
        reference: `data-transfer:${id}`,
        recordIds: [offer.recordId],
        fromCountry: '',
      });
      transferRegisterId = reply.transferId;
    }

    const encrypted = await encryptForRecipient(recipient.public_jwk, plaintext, id);
    const now = this.clock.now();
    const dataSha256 = createHash('sha256').update(plaintext).digest('hex');
    const key = await this.keys.activeKey();
    const receipt = await signCompactJws(
      key,
      {
        iss: this.config.publicBaseUrl,
        iat: Math.floor(now.getTime() / 1000),
        transfer_id: id,
        application_id: principal.applicationId,
        license_id: license.id,
        offer_id: offer.id,
        record_id: offer.recordId,
        recipient: { party_id: recipient.party_id, name: recipient.name, country },
        from_country: here,
        purpose: body.purpose,
        data_category: body.data_category,
        data_sha256: dataSha256,
        jwe_sha256: createHash('sha256').update(encrypted.jwe).digest('hex'),
        encryption: { alg: encrypted.alg, enc: 'A256GCM', kid: encrypted.kid },
        transfer_register_id: transferRegisterId,
        sent_at: now.toISOString(),
      },
      { typ: TRANSFER_RECEIPT_TYP },
    );
    const transfer: DataTransfer = {
      id,
      applicationId: principal.applicationId,
      licenseId: license.id,
      offerId: offer.id,
      recordId: offer.recordId,
      recipientPartyId: recipient.party_id,
      recipientCountry: country,
      purpose: body.purpose,
      dataCategory: body.data_category,
      keyAlgorithm: encrypted.alg,
      keyId: encrypted.kid,
      dataSha256,
      jwe: encrypted.jwe,
      transferRegisterId,
      receipt,
      createdAt: now,
    };
    await this.transfers.insert(transfer);
    return transfer;
  }

  /** One transfer of the licence; unknown ids, malformed ids and other applications' answer alike. */
  async get(principal: Principal, licenseId: string, transferId: string): Promise<DataTransfer> {
    const license = await this.deals.license(principal, licenseId);
    const found = isIdOf('data_transfer', transferId)
      ? await this.transfers.find(principal.applicationId, license.id, transferId)
      : undefined;
    if (!found) throw consentRecordsError('data_transfer_not_found', 'Data transfer not found', { transfer_id: transferId.slice(0, 100) });
    return found;
  }
}
