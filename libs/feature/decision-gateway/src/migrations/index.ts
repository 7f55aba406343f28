import type { SchemaMigrations } from '@svc/persistence';
import { GATEWAY_SCHEMA } from '../schema';
import { CreateConnect1732300000000 } from './1732300000000-create-connect';
import { CreateDecisionSessions1732400000000 } from './1732400000000-create-decision-sessions';
import { CreateHostedPages1732500000000 } from './1732500000000-create-hosted-pages';
import { AddPrincipalBinding1732600000000 } from './1732600000000-add-principal-binding';
import { CreatePeople1732700000000 } from './1732700000000-create-people';
import { AddApplicationBranding1732710000000 } from './1732710000000-add-application-branding';
import { CreateOAuth1732800000000 } from './1732800000000-create-oauth';
import { CreateDelegationGrants1732900000000 } from './1732900000000-create-delegation-grants';
import { AddPersonEmailLookup1733000000000 } from './1733000000000-add-person-email-lookup';
import { DropDelegationIdempotencyKey1800000000001 } from './1800000000001-drop-delegation-idempotency-key';
import { CreateAgreements1807000000000 } from './1807000000000-create-agreements';
import { CreateComply1804000000000 } from './1804000000000-create-comply';
import { CreateCollaborations1809000000000 } from './1809000000000-create-collaborations';
import { DropAgreementIdempotencyKey1810000000000 } from './1810000000000-drop-agreement-idempotency-key';
import { CreateAgreementAmendments1810000000001 } from './1810000000001-create-agreement-amendments';
import { CreateDataRequests1812000000000 } from './1812000000000-create-data-requests';
import { CreateAccounts1814000000000 } from './1814000000000-create-accounts';
import { CreateTrustPairings1816000000000 } from './1816000000000-create-trust-pairings';
import { CreateDeviceLinks1815000000000 } from './1815000000000-create-device-links';
import { AddDelegationTransferBasis1827000000000 } from './1827000000000-add-delegation-transfer-basis';
import { DropDelegationDelegateFk1827000000001 } from './1827000000001-drop-delegation-delegate-fk';

/** decision-gateway's schema and its migrations, in order. */
export const gatewayMigrations: SchemaMigrations = {
  schema: GATEWAY_SCHEMA,
  migrations: [
    CreateConnect1732300000000,
    CreateDecisionSessions1732400000000,
    CreateHostedPages1732500000000,
    AddPrincipalBinding1732600000000,
    CreatePeople1732700000000,
    AddApplicationBranding1732710000000,
    CreateOAuth1732800000000,
    CreateDelegationGrants1732900000000,
    AddPersonEmailLookup1733000000000,
    DropDelegationIdempotencyKey1800000000001,
    CreateAgreements1807000000000,
    CreateComply1804000000000,
    CreateCollaborations1809000000000,
    DropAgreementIdempotencyKey1810000000000,
    CreateAgreementAmendments1810000000001,
    CreateDataRequests1812000000000,
    CreateAccounts1814000000000,
    CreateTrustPairings1816000000000,
    CreateDeviceLinks1815000000000,
    AddDelegationTransferBasis1827000000000,
    DropDelegationDelegateFk1827000000001,
  ],
};
