import { Module } from '@nestjs/common';

/** oversight-witness: trusted attesters, attestations, heartbeats, witness receipts, hybrid routing. */
@Module({})
export class OversightWitnessModule {}
