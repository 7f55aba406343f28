import type { SchemaMigrations } from '@svc/persistence';
import { OAP_SCHEMA } from '../schema';
import { CreateOap1795400000000 } from './1795400000000-create-oap';
import { IndexPendingEscalations1796200000000 } from './1796200000000-index-pending-escalations';
import { AuthorityUsage1796900000000 } from './1796900000000-authority-usage';
import { EscalationProposal1797000000000 } from './1797000000000-escalation-proposal';
import { RevocationReasonCode1797300000000 } from './1797300000000-revocation-reason-code';
import { McpServers1797400000000 } from './1797400000000-mcp-servers';
import { AgentDpopKey1797400000000 } from './1797400000000-agent-dpop-key';
import { EscalationCounterProposal1797400000000 } from './1797400000000-escalation-counter-proposal';
import { AuthorityProposal1797500000000 } from './1797500000000-authority-proposal';
import { Vouches1805000000000 } from './1805000000000-vouches';

/** oap-authorizer's schema and its migrations, in order. */
export const oapMigrations: SchemaMigrations = {
  schema: OAP_SCHEMA,
  migrations: [
    CreateOap1795400000000,
    IndexPendingEscalations1796200000000,
    AuthorityUsage1796900000000,
    EscalationProposal1797000000000,
    RevocationReasonCode1797300000000,
    McpServers1797400000000,
    AgentDpopKey1797400000000,
    EscalationCounterProposal1797400000000,
    AuthorityProposal1797500000000,
    Vouches1805000000000,
  ],
};
