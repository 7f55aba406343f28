import { Module } from '@nestjs/common';
import { PeopleModule } from '../people/people.module';
import { CollaborationsController } from './collaborations.controller';
import { CollaborationsRepository } from './collaborations.repository';
import { CollaborationsService } from './collaborations.service';

/** Agree: collaborations, their parties, invitations, attached agreements and history. */
@Module({
  imports: [PeopleModule],
  controllers: [CollaborationsController],
  providers: [CollaborationsRepository, CollaborationsService],
})
export class CollaborationsModule {}
