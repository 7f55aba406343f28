import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { ApplicationsRepository } from '../applications/applications.repository';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { HOSTED_SIGN_IN } from '../decisions/principal-binding';
import { SettledFlowVersions } from '../decisions/settled-flow-versions';
import { AuthorityProposalPageController } from './authority-proposal-page.controller';
import { PeopleHostedSignIn } from './hosted-sign-in.adapter';
import { PeopleMailer } from './mailer';
import { PersonNotices } from './person-notices';
import { DecisionGatewayConfig } from '../decision-gateway.config';
import { PeopleConfig } from './people.config';
import { MyReceiptPageController } from './my-receipt-page.controller';
import { PeopleController } from './people.controller';
import { MyConsentRecordsController } from './my-consent-records.controller';
import { PeopleRepository } from './people.repository';
import { PersonHomeLookup, PersonHomeRpcHandlers } from './person-home-lookup';
import { PersonInboxController } from './person-inbox.controller';
import { PersonLinksController } from './person-links.controller';
import { PERSON_DIRECTORY, PERSON_SESSIONS } from './person-sessions.port';
import { PersonSessionsService } from './person-sessions.service';
import { SignInFailureReports } from './sign-in-failure-reports';
import { SignInThrottle } from './sign-in-throttle';
import { StartEmailCode, VerifyEmailCode } from './use-cases/email-codes.use-case';
import { Passkeys } from './use-cases/passkeys.use-case';
import { PersonLinks } from './use-cases/person-links.use-case';

/**
 * People homed in this region: accounts, email-code and passkey sign-in, the browser's sign-in
 * cookie, application links. Provides the {@link PERSON_SESSIONS} and {@link PERSON_DIRECTORY}
 * ports to the rest of decision-gateway.
 */
@Module({
  controllers: [
    AuthorityProposalPageController,
    PeopleController,
    PersonLinksController,
    PersonInboxController,
    MyConsentRecordsController,
    MyReceiptPageController,
    PersonHomeRpcHandlers,
  ],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    { provide: PeopleConfig, useExisting: DecisionGatewayConfig },
    ApplicationsRepository,
    PeopleRepository,
    PeopleMailer,
    PersonHomeLookup,
    SignInThrottle,
    PersonSessionsService,
    { provide: PERSON_SESSIONS, useExisting: PersonSessionsService },
    { provide: PERSON_DIRECTORY, useExisting: PersonSessionsService },
    StartEmailCode,
    VerifyEmailCode,
    Passkeys,
    PersonLinks,
    SignInFailureReports,
    SettledFlowVersions,
    PeopleHostedSignIn,
    PersonNotices,
    { provide: HOSTED_SIGN_IN, useExisting: PeopleHostedSignIn },
  ],
  exports: [
    PERSON_SESSIONS,
    PERSON_DIRECTORY,
    HOSTED_SIGN_IN,
    PersonSessionsService,
    PeopleRepository,
    PeopleHostedSignIn,
    PersonNotices,
    PeopleMailer,
    // Shared with the decisions module's FlowLookup: one memory of settled flow versions per process.
    SettledFlowVersions,
  ],
})
export class PeopleModule {}
