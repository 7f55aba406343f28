import { Module } from '@nestjs/common';
import { ApplicationsRepository } from '../applications/applications.repository';
import { TrustPairingsController } from './trust-pairings.controller';
import { TrustPairingsRepository } from './trust-pairings.repository';
import { MoveTrustPairing, ProposeTrustPairing } from './use-cases/trust-pairings.use-case';

/** Connect: trust pairings and their counterparty tokens. */
@Module({
  controllers: [TrustPairingsController],
  providers: [TrustPairingsRepository, ApplicationsRepository, ProposeTrustPairing, MoveTrustPairing],
  exports: [TrustPairingsRepository],
})
export class TrustPairingsModule {}
