import type { DealMoveRow, DataLicense, DataOffer } from './deals.repository';
import { effectiveState } from './deal';
import type { DataLicenseResponse, DataOfferResponse, DataOfferSummaryResponse } from './deals.responses';

export function licenseView(license: DataLicense): DataLicenseResponse {
  return {
    id: license.id,
    object: 'data_license',
    application_id: license.applicationId,
    name: license.name,
    flow_id: license.flowId,
    terms: license.terms,
    offer_window: license.offerWindow,
    created_at: license.createdAt.toISOString(),
  };
}

export function offerView(offer: DataOffer, history: readonly DealMoveRow[], now: Date): DataOfferResponse {
  return {
    ...offerSummaryView(offer, now),
    history: history.map((m) => ({
      seq: m.seq,
      move: m.move,
      actor: m.actor,
      from: m.from,
      to: m.to,
      terms: m.terms,
      note: m.note,
      at: m.at.toISOString(),
    })),
  };
}

export function offerSummaryView(offer: DataOffer, now: Date): DataOfferSummaryResponse {
  return {
    id: offer.id,
    object: 'data_offer',
    application_id: offer.applicationId,
    license_id: offer.licenseId,
    subject: offer.subject,
    state: effectiveState(offer.state, offer.expiresAt, now),
    terms: offer.terms,
    expires_at: offer.expiresAt?.toISOString() ?? null,
    record_id: offer.recordId,
    accepted_at: offer.acceptedAt?.toISOString() ?? null,
    created_at: offer.createdAt.toISOString(),
    updated_at: offer.updatedAt.toISOString(),
  };
}
