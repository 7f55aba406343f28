import type { QuorumType } from './decision';

/** A participant's answer: approve / sign (yes), deny / decline (no), or counter. */
export type Vote = 'yes' | 'no' | 'counter';

export interface Tally {
  yes: number;
  no: number;
  counter: number;
}

/**
 * Votes needed for a yes: all → every participant; majority → more than half; threshold → the
 * declared count (1 ≤ threshold ≤ participants, checked at creation).
 */
export function requiredVotes(type: QuorumType, participants: number, threshold?: number): number {
  switch (type) {
    case 'all':
      return participants;
    case 'majority':
      return Math.floor(participants / 2) + 1;
    case 'threshold':
      return threshold ?? participants;
  }
}

/**
 * The aggregated outcome once it is decided, else undefined. Yes as soon as `required` yes votes
 * are in; once yes can no longer be reached, counter if counters outnumber refusals, otherwise no
 * (a tie resolves to no: the action does not proceed on an ambiguous answer).
 */
export function aggregate(tally: Tally, participants: number, required: number): Vote | undefined {
  if (tally.yes >= required) return 'yes';
  const outstanding = participants - tally.yes - tally.no - tally.counter;
  if (tally.yes + outstanding >= required) return undefined;
  return tally.counter > tally.no ? 'counter' : 'no';
}
