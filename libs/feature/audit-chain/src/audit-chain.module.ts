import { Module } from '@nestjs/common';

/** audit-chain: the hash-chained audit trail per region, witnessed checkpoints, verification and transparency endpoints. */
@Module({})
export class AuditChainModule {}
