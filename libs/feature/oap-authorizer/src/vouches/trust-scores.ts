import { Injectable } from '@nestjs/common';
import { parseId } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import { TRUST_SCORE_FORMULA, TRUST_SCORE_FORMULA_VERSION, trustScore, type TrustScoreInputs } from './trust-score';
import { VouchesRepository } from './vouches.repository';

/** A computed score with what it was computed from. */
export interface ComputedTrustScore {
  subject: string;
  score: number;
  vouchCount: number;
  inputs: TrustScoreInputs;
  formula: string;
  formulaVersion: string;
  computedAt: Date;
}

/**
 * Computes trust scores and keeps cascade step 9's snapshot (`oap.agents.trust_score`,
 * `vouch_count`) equal to the formula's result: every vouch write and every expiry applied calls
 * {@link refresh} in its own transaction, so the grant path reads a current value without
 * computing it.
 */
@Injectable()
export class TrustScores {
  constructor(private readonly vouches: VouchesRepository) {}

  async compute(manager: EntityManager, subject: string, now: Date): Promise<ComputedTrustScore> {
    const inputs = await this.vouches.scoreInputs(manager, subject, now);
    return {
      subject,
      score: trustScore(inputs),
      vouchCount: inputs.vouch_count,
      inputs,
      formula: TRUST_SCORE_FORMULA,
      formulaVersion: TRUST_SCORE_FORMULA_VERSION,
      computedAt: now,
    };
  }

  /** Recomputes the subject's score and, for an agent, stores it where step 9 reads it. */
  async refresh(manager: EntityManager, subject: string, now: Date): Promise<ComputedTrustScore> {
    const computed = await this.compute(manager, subject, now);
    if (parseId(subject)?.kind === 'agent')
      await this.vouches.storeAgentReputation(manager, subject, computed.score, computed.vouchCount, now);
    return computed;
  }
}
