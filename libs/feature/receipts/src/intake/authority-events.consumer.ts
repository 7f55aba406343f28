import { Controller } from '@nestjs/common';
import { BusConnection, EventConsumer, RpcClient, type DeliveredEvent } from '@svc/bus';
import { AuthorityChangedSchema, decodeSealedEvent, type AuthorityChanged } from '@svc/contracts';
import { sha256Hex } from '@svc/crypto';
import { CredentialIssuer } from '../credentials/credential-issuer';
import { CredentialsRepository } from '../credentials/credentials.repository';
import type { ReceiptTransition } from '../events/transitions';
import type { AuthorityInput } from '../record/inputs';
import { AppendReceiptTransition } from '../use-cases/append-receipt-transition.use-case';
import { FreezeReceipt } from '../use-cases/freeze-receipt.use-case';
import { authorityInput } from './authority-input';
import { UnreceiptableRecord, controllerParty, declaredJurisdiction } from './consent-record-input';
import { applicationOfEvent } from './event-application';
import { eventTime } from './event-time';
import { PrincipalPseudonyms } from './principal-pseudonyms';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-authorities';

/**
 * Freezes an authority's `authorization_record` from oap-authorizer's `authority.created` and
 * appends `authority.suspended` / `resumed` / `revoked` / `exercised` as its `authority *` events.
 * State changes are made through the application's API, so the application is their acting entity;
 * an exercise is the agent's. `authority.created` carries the controller's name and jurisdiction
 * (`application`), so the record is frozen from the event alone. It also keeps which authorities exist and who granted them (by
 * digest), for authority-record credentials, and revokes those credentials with the authority.
 */
@Controller()
export class AuthorityEvents {
  constructor(
    private readonly bus: BusConnection,
    private readonly rpc: RpcClient,
    private readonly intake: ReceiptIntake,
    private readonly pseudonyms: PrincipalPseudonyms,
    private readonly freeze: FreezeReceipt,
    private readonly append: AppendReceiptTransition,
    private readonly issuer: CredentialIssuer,
    private readonly credentials: CredentialsRepository,
  ) {}

  /** Applies one authority event; false when it was seen before, refused or not an authority event. */
  @EventConsumer({ durable: CONSUMER, types: 'authority.>' }, RECEIPT_INTAKE_DELIVERY)
  async handle(event: DeliveredEvent): Promise<boolean> {
    const changed = decodeSealedEvent(AuthorityChangedSchema, event.data, this.bus.personalData);
    const applicationId = changed.meta?.applicationId ?? '';
    if (!applicationId || !changed.authorityId) return false;
    if (event.eventType === 'authority.created') return this.created(event, changed, applicationId);
    const transition = (): ReceiptTransition => {
      const at = eventTime(undefined, changed.meta);
      switch (event.eventType) {
        case 'authority.suspended':
          return { type: 'authority_suspended', at, entity_id: applicationId };
        case 'authority.resumed':
          return { type: 'authority_resumed', at, entity_id: applicationId };
        case 'authority.revoked':
          return { type: 'authority_revoked', at, entity_id: applicationId, channel: 'organisation' };
        case 'authority.exercised':
          // The agent exercised it: a grant was issued under the authority.
          return { type: 'authority_exercised', at, entity_id: changed.agentId || applicationId };
        default:
          throw new UnreceiptableRecord(`${event.eventType} is not an authority transition`);
      }
    };
    return this.intake.once(CONSUMER, event, async (manager) => {
      const appended = await this.append.execute(applicationId, changed.authorityId, transition(), event.id, manager);
      // Its authority-record credentials are revoked (status bit set) in the same transaction.
      if (event.eventType === 'authority.revoked') await this.issuer.revokeForAuthority(manager, applicationId, changed.authorityId);
      return appended;
    });
  }

  private async created(event: DeliveredEvent, changed: AuthorityChanged, applicationId: string): Promise<boolean> {
    if (await this.intake.seen(CONSUMER, event)) return false;
    let input: AuthorityInput;
    try {
      if (!changed.principalId) throw new UnreceiptableRecord('authority.created names no principal');
      const application = await applicationOfEvent(this.rpc, applicationId, changed.application);
      const pseudonym = await this.pseudonyms.pseudonym(applicationId, { kind: 'principal', value: changed.principalId });
      input = authorityInput(changed, controllerParty(applicationId, application.found ? application.name : undefined), pseudonym);
      const jurisdiction = declaredJurisdiction(application);
      if (jurisdiction) input = { ...input, processing: { ...input.processing, jurisdiction } };
    } catch (error) {
      if (error instanceof UnreceiptableRecord) return this.intake.skip(CONSUMER, event, error);
      throw error;
    }
    const principalId = changed.principalId;
    return this.intake.once(CONSUMER, event, async (manager) => {
      const frozen = await this.freeze.execute(input, 'oap-authorizer', manager);
      await this.credentials.recordAuthority(manager, {
        authorityId: changed.authorityId,
        applicationId,
        principalSha256: sha256Hex(principalId),
        agentId: changed.agentId,
        grantedAt: dateOr(changed.createdAt) ?? new Date(eventTime(undefined, changed.meta)),
        validUntil: dateOr(changed.validUntil) ?? null,
      });
      return frozen.created;
    });
  }
}

/** The date of an RFC 3339 string, or undefined when empty or unreadable. */
function dateOr(value: string): Date | undefined {
  const date = value ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
