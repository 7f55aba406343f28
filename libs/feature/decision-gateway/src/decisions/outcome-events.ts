import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { StampedApplicationFacts } from '@svc/bus';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { DecisionSession } from './decision';
import type { Tally } from './quorum';

/**
 * Publishes (through the outbox, in the caller's transaction) the one event of a resolved
 * approval or signing decision, carrying the aggregated outcome and the tally behind it. An
 * approval's event also carries the application's facts (`application`) its receipt names, so
 * the receipts service needs no call back.
 */
export async function addVoteOutcomeEvent(
  outbox: OutboxWriter,
  manager: EntityManager,
  session: DecisionSession,
  tally: Tally,
  at: Date,
  application?: StampedApplicationFacts,
): Promise<void> {
  const context = { applicationId: session.applicationId, occurredAt: at };
  const counterProposalJson = session.status === 'countered' && session.counterProposal ? JSON.stringify(session.counterProposal) : '';
  const common = {
    sessionToken: session.sessionToken ?? '',
    reference: session.reference ?? '',
    principalId: session.principalId ?? '',
    quorumType: session.quorumType ?? '',
    required: session.quorumRequired ?? 0,
    counters: tally.counter,
    counterProposalJson,
    decidedAt: timestampFromDate(at),
  };
  if (session.kind === 'approval') {
    const type = ({ approved: 'approval.granted', denied: 'approval.denied', countered: 'approval.countered' } as const)[
      session.status as 'approved' | 'denied' | 'countered'
    ];
    if (!type) return;
    await outbox.add(
      manager,
      type,
      {
        ...common,
        triggerType: session.triggerType ?? '',
        outcome: session.status,
        approvals: tally.yes,
        denials: tally.no,
        ...(application ? { application } : {}),
      },
      context,
    );
    return;
  }
  if (session.kind === 'signature_request') {
    const type = (
      {
        signed: 'signature.signed',
        declined: 'signature.declined',
        countered: 'signature.countered',
        expired: 'signature.expired',
      } as const
    )[session.status as 'signed' | 'declined' | 'countered' | 'expired'];
    if (!type) return;
    await outbox.add(manager, type, { ...common, outcome: session.status, signatures: tally.yes, declines: tally.no }, context);
  }
}
