import { Module } from '@nestjs/common';
import { TrustScores } from './trust-scores';
import { CreateVouch } from './use-cases/create-vouch.use-case';
import { RevokeVouch } from './use-cases/revoke-vouch.use-case';
import { VouchExpirySweep } from './vouch-expiry.sweep';
import { TrustScoresController, VouchesController } from './vouches.controller';
import { VouchesRepository } from './vouches.repository';

/**
 * Vouches and trust scores (Verify surface), part of oap-authorizer because cascade step 9 reads
 * the score: every vouch write keeps the agent's stored snapshot equal to the published formula.
 */
@Module({
  controllers: [VouchesController, TrustScoresController],
  providers: [VouchesRepository, TrustScores, CreateVouch, RevokeVouch, VouchExpirySweep],
  exports: [CreateVouch, RevokeVouch, TrustScores, VouchExpirySweep],
})
export class VouchesModule {}
