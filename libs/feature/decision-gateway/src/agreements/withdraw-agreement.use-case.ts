import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { OPEN_AGREEMENT_STATUSES, type Agreement } from './agreement';
import { AgreementSigning } from './agreement-signing.service';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';

/**
 * The application withdraws an agreement before its outcome: `withdrawn` is final,
 * `agreement.withdrawn` is published, and every later answer of a signer is refused
 * (409 `agreement_decided`). An agreement already decided cannot be withdrawn (409).
 */
@Injectable()
export class WithdrawAgreement {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly signing: AgreementSigning,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, agreementId: string): Promise<Agreement> {
    return this.agreements.transaction(async (manager) => {
      const agreement = await this.agreements.find(agreementId, { manager, applicationId, lock: true });
      if (!agreement) throw agreementError('agreement_not_found', 'Agreement not found');
      if (!OPEN_AGREEMENT_STATUSES.includes(agreement.status))
        throw agreementError('agreement_decided', `The agreement is already ${agreement.status}`, { status: agreement.status });
      const now = this.clock.now();
      const withdrawn = await this.agreements.setStatus(manager, agreement.id, 'withdrawn', now, now);
      const tally = await this.agreements.tally(manager, agreement.id);
      await this.signing.addDecidedEvent(manager, withdrawn, tally, (await this.agreements.parties(agreement.id, manager)).length, now);
      return withdrawn;
    });
  }
}
