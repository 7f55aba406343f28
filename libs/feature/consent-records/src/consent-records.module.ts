import { Module } from '@nestjs/common';

/** consent-records: flows and their versions, Record API, imports, captures, consent status, withdrawals, the consent token lifecycle. */
@Module({})
export class ConsentRecordsModule {}
