import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { isIdOf, newRegionalId } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import { FlowsRepository } from '../flows/flows.repository';
import { activeCapturableFlow } from '../records/active-flow';
import { recordDraft, subjectOf } from '../records/record-draft';
import { RecordWriter } from '../records/record-writer';
import { RecordsRepository } from '../records/records.repository';
import { effectiveState, nextState, OPEN_STATES, termsOutsideLicense, type DealActor, type DealMove, type DealTerms } from './deal';
import { DealsRepository, type DataLicense, type DataOffer } from './deals.repository';
import type { CreateLicenseBody, CreateOfferBody, TermsChangeInput, UseCheckBody } from './deals.dto';

const DEFAULT_OFFER_WINDOW = 'P14D';

/** Why a data use is refused (use checks). */
export type UseRefusal =
  | 'deal_not_accepted'
  | 'deal_term_ended'
  | 'consent_withdrawn'
  | 'consent_expired'
  | 'purpose_not_agreed'
  | 'data_category_not_agreed'
  | 'recipient_not_agreed';

/**
 * Licences and offers (Protect): creation, the moves of the trigger table in `deal.ts`, and the
 * check of a data use against an accepted deal. Every move runs under the offer's row lock, so two
 * answers to one offer are applied one after the other and the second sees the first's state.
 */
@Injectable()
export class DataDeals {
  constructor(
    private readonly deals: DealsRepository,
    private readonly flows: FlowsRepository,
    private readonly records: RecordsRepository,
    private readonly writer: RecordWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** A licence over consent purposes of one of the application's active, capturable flows. */
  async createLicense(principal: Principal, body: CreateLicenseBody): Promise<DataLicense> {
    const flow = await activeCapturableFlow(this.flows, principal.applicationId, body.flow_id);
    for (const purpose of body.purposes) {
      const declared = flow.terms.purposes.find((p) => p.key === purpose);
      if (!declared || declared.mechanism !== 'consent')
        throw consentRecordsError('license_purpose_not_in_flow', `purpose "${purpose}" is not a consent purpose of the flow`, {
          field: 'purposes',
          purpose,
        });
    }
    const license: DataLicense = {
      id: newRegionalId('data_license', this.config.REGION),
      applicationId: principal.applicationId,
      name: body.name,
      flowId: body.flow_id,
      terms: {
        purposes: body.purposes,
        data_categories: body.data_categories,
        duration: body.duration,
        price: body.price ? { amount: body.price.amount, currency: body.price.currency } : null,
        recipients: body.recipients.map((r) => ({
          party_id: r.party_id,
          name: r.name,
          ...(r.public_jwk ? { public_jwk: r.public_jwk } : {}),
          ...(r.country ? { country: r.country } : {}),
        })),
      },
      offerWindow: body.offer_window ?? DEFAULT_OFFER_WINDOW,
      createdAt: this.clock.now(),
    };
    await this.deals.insertLicense(license);
    return license;
  }

  async license(principal: Principal, licenseId: string): Promise<DataLicense> {
    const found = isIdOf('data_license', licenseId) ? await this.deals.findLicense(principal.applicationId, licenseId) : undefined;
    if (!found) throw consentRecordsError('data_license_not_found', 'Data licence not found', { license_id: licenseId });
    return found;
  }

  /** A draft offer to one person under a licence, with the licence's terms or narrower ones. */
  async createOffer(principal: Principal, body: CreateOfferBody): Promise<DataOffer> {
    const license = await this.license(principal, body.license_id);
    const subject = subjectOf(body.subject);
    const terms = this.changed(license.terms, license.terms, body.terms);
    const now = this.clock.now();
    const offer: DataOffer = {
      id: newRegionalId('data_offer', this.config.REGION),
      applicationId: principal.applicationId,
      licenseId: license.id,
      subject,
      state: 'draft',
      terms,
      expiresAt: null,
      recordId: null,
      acceptedAt: null,
      moves: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.deals.transaction(async (manager) => {
      await this.deals.insertOffer(manager, offer);
      await this.deals.insertMove(manager, offer.id, {
        seq: 1,
        move: 'create',
        actor: 'application',
        from: null,
        to: 'draft',
        terms,
        note: null,
        at: now,
      });
    });
    return offer;
  }

  async offer(principal: Principal, offerId: string, manager?: EntityManager, lock = false): Promise<DataOffer> {
    const found = isIdOf('data_offer', offerId)
      ? await this.deals.findOffer(principal.applicationId, offerId, { manager, lock })
      : undefined;
    if (!found) throw consentRecordsError('data_offer_not_found', 'Data offer not found', { offer_id: offerId });
    return found;
  }

  /**
   * Applies one move. An open offer past its expires_at is first recorded as expired (a move of
   * the platform, committed even though the caller's move is refused with 410 offer_expired).
   */
  async move(
    principal: Principal,
    offerId: string,
    move: DealMove,
    actor: DealActor,
    change?: TermsChangeInput,
    note?: string,
  ): Promise<DataOffer> {
    const now = this.clock.now();
    const outcome = await this.deals.transaction(async (manager) => {
      const offer = await this.offer(principal, offerId, manager, true);
      if (effectiveState(offer.state, offer.expiresAt, now) === 'expired' && offer.state !== 'expired') {
        const seq = offer.moves + 1;
        const expired: DataOffer = { ...offer, state: 'expired', moves: seq, updatedAt: now };
        await this.deals.saveMove(manager, expired, {
          seq,
          move: 'expire',
          actor: 'platform',
          from: offer.state,
          to: 'expired',
          terms: offer.terms,
          note: null,
          at: offer.expiresAt!,
        });
        return { expired: true as const, offer: expired };
      }
      if (offer.state === 'expired') return { expired: true as const, offer };
      const to = nextState(offer.state, move, actor);
      if (!to)
        throw consentRecordsError('deal_move_not_allowed', `An offer in state ${offer.state} cannot take "${move}" by the ${actor}`, {
          state: offer.state,
          move,
          actor,
        });
      const license = (await this.deals.findLicense(principal.applicationId, offer.licenseId, manager))!;
      const terms = move === 'counter' || move === 'revise' ? this.changed(offer.terms, license.terms, change) : offer.terms;
      const seq = offer.moves + 1;
      const next: DataOffer = { ...offer, state: to, terms, moves: seq, updatedAt: now };
      if (OPEN_STATES.includes(to)) next.expiresAt = await this.plus(manager, now, license.offerWindow);
      if (to === 'accepted') {
        next.recordId = await this.recordConsent(manager, principal, offer, license, now);
        next.acceptedAt = now;
        next.expiresAt = null;
      }
      await this.deals.saveMove(manager, next, { seq, move, actor, from: offer.state, to, terms, note: note ?? null, at: now });
      return { expired: false as const, offer: next };
    });
    if (outcome.expired)
      throw consentRecordsError('offer_expired', 'The offer expired before this answer', {
        offer_id: offerId,
        expires_at: outcome.offer.expiresAt?.toISOString() ?? null,
      });
    return outcome.offer;
  }

  /** Whether a use of the data is covered by the accepted deal, and if not, why. */
  async checkUse(principal: Principal, offerId: string, use: UseCheckBody): Promise<{ offer: DataOffer; refusal: UseRefusal | null }> {
    const offer = await this.offer(principal, offerId);
    const refusal = await this.refusalOf(offer, use);
    return { offer, refusal };
  }

  /** When an accepted deal's term ends (accepted_at + duration), or null before acceptance. */
  async dealEnd(offer: DataOffer): Promise<Date | null> {
    if (!offer.acceptedAt) return null;
    return this.plus(undefined, offer.acceptedAt, offer.terms.duration);
  }

  private async refusalOf(offer: DataOffer, use: UseCheckBody): Promise<UseRefusal | null> {
    const now = this.clock.now();
    if (offer.state !== 'accepted' || !offer.recordId) return 'deal_not_accepted';
    const end = await this.dealEnd(offer);
    if (end && end.getTime() <= now.getTime()) return 'deal_term_ended';
    const withdrawals = await this.records.withdrawalsOf([offer.recordId]);
    if (withdrawals.some((w) => w.purpose === null || w.purpose === use.purpose)) return 'consent_withdrawn';
    if (await this.records.expiryOf(offer.recordId)) return 'consent_expired';
    if (!offer.terms.purposes.includes(use.purpose)) return 'purpose_not_agreed';
    if (!offer.terms.data_categories.includes(use.data_category)) return 'data_category_not_agreed';
    if (use.recipient !== undefined && !offer.terms.recipients.some((r) => r.party_id === use.recipient)) return 'recipient_not_agreed';
    return null;
  }

  /** `base` with `change` applied (a null price removes the price), refused when it leaves the licence. */
  private changed(base: DealTerms, license: DealTerms, change: TermsChangeInput | undefined): DealTerms {
    const terms: DealTerms = {
      purposes: change?.purposes ?? base.purposes,
      data_categories: change?.data_categories ?? base.data_categories,
      duration: change?.duration ?? base.duration,
      price:
        change && 'price' in change ? (change.price ? { amount: change.price.amount, currency: change.price.currency } : null) : base.price,
      recipients: change?.recipients ? change.recipients.map((r) => ({ party_id: r.party_id, name: r.name })) : base.recipients,
    };
    const outside = termsOutsideLicense(terms, license);
    if (outside)
      throw consentRecordsError('terms_outside_license', `${outside.field} holds "${outside.value}", which the licence does not allow`, {
        field: outside.field,
        value: outside.value,
      });
    return terms;
  }

  /**
   * The consent the accepted deal is: a record under the licence's flow, captured now, granting
   * the agreed purposes and declining the flow's other consent purposes, idempotent per offer.
   */
  private async recordConsent(
    manager: EntityManager,
    principal: Principal,
    offer: DataOffer,
    license: DataLicense,
    now: Date,
  ): Promise<string> {
    const flow = await activeCapturableFlow(this.flows, principal.applicationId, license.flowId, manager);
    const decisions = Object.fromEntries(
      flow.terms.purposes
        .filter((p) => p.mechanism === 'consent')
        .map((p) => [
          p.key,
          { decision: offer.terms.purposes.includes(p.key) ? 'granted' : 'declined', default_checked: false, mandatory: false },
        ]),
    );
    const draft = recordDraft(
      {
        subject: {
          ...(offer.subject.email ? { email: offer.subject.email } : {}),
          ...(offer.subject.external_id ? { external_id: offer.subject.external_id } : {}),
        },
        decisions,
        captured_at: now.toISOString(),
        idempotency_key: `deal:${offer.id}`,
      },
      flow,
      principal.applicationId,
      'controller_attested',
      now,
    );
    const outcome = await this.writer.write(manager, draft, now);
    return outcome.record.id;
  }

  private async plus(manager: EntityManager | undefined, at: Date, duration: string): Promise<Date> {
    const rows: Array<{ t: Date }> = await (manager ?? this.deals.manager()).query(`SELECT ($1::timestamptz + $2::interval) AS t`, [
      at,
      duration,
    ]);
    return rows[0]!.t;
  }
}
