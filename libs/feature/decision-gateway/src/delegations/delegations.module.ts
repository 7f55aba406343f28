import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { DelegationResolver, NoDelegationGrants } from '@svc/auth';
import { OutboxRegistry } from '@svc/server';
import { PeopleModule } from '../people/people.module';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { DelegationGrants, DelegationGrantsService } from './delegation-grants.service';
import { DelegationsController } from './delegations.controller';
import { DelegationsRepository } from './delegations.repository';

/** Delegation grants (`dlg_…`) and the X-Delegation-Grant-Id check of the auth guard. */
@Module({
  imports: [PeopleModule],
  controllers: [DelegationsController],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    DelegationsRepository,
    DelegationGrantsService,
    { provide: DelegationGrants, useExisting: DelegationGrantsService },
  ],
  exports: [DelegationGrants, DelegationGrantsService],
})
export class DelegationsModule implements OnModuleInit {
  constructor(
    @Inject(DelegationResolver) private readonly resolver: DelegationResolver,
    private readonly grants: DelegationGrantsService,
  ) {}

  onModuleInit(): void {
    if (this.resolver instanceof NoDelegationGrants) this.resolver.register(this.grants);
  }
}
