import { Module } from '@nestjs/common';
import { PeopleModule } from '../people/people.module';
import { SupportReadsController, SupportRpcHandlers } from './support-reads.controller';
import { SupportReads } from './support-reads.service';

/** Support reads: an account's operator reads a person's profile, across regions through the transfer register. */
@Module({
  imports: [PeopleModule],
  controllers: [SupportReadsController, SupportRpcHandlers],
  providers: [SupportReads],
})
export class SupportModule {}
