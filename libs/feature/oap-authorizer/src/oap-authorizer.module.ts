import { PersonDataRpcHandlers } from './authorities/person-data-rpc.handlers';
import { AuthorityProposalRpcHandlers } from './authorities/authority-proposal-rpc.handlers';
import { PersonAuthoritiesRpcHandlers } from './authorities/person-authorities-rpc.handlers';
import { AgentIdentitiesController, ApplicationAgentsController } from './agents/agent-identities.controller';
import { Module } from '@nestjs/common';
import { ApplicationFactsReader } from '@svc/bus';
import { OutboxRegistry } from '@svc/server';
import { AgentsController } from './agents/agents.controller';
import { AgentsRepository } from './agents/agents.repository';
import { OapCredentialsController } from './verification/oap-credentials.controller';
import { ManifestTransparencyController } from './agents/manifest-transparency.controller';
import { CapabilitiesController } from './agents/capabilities.controller';
import { IpRateLimiter } from './agents/ip-rate-limiter';
import { CapabilityDocumentInvalidations, CapabilityDocuments } from './agents/capability-documents';
import { PublishCapabilities } from './agents/use-cases/publish-capabilities.use-case';
import { RecordAgentReputation } from './agents/use-cases/record-agent-reputation.use-case';
import { RegisterAgent } from './agents/use-cases/register-agent.use-case';
import { AuthoritiesController } from './authorities/authorities.controller';
import { AuthoritiesRepository } from './authorities/authorities.repository';
import { CreateAuthority } from './authorities/use-cases/create-authority.use-case';
import { ResumeAuthority } from './authorities/use-cases/resume-authority.use-case';
import { RevokeAuthority } from './authorities/use-cases/revoke-authority.use-case';
import { SuspendAuthority } from './authorities/use-cases/suspend-authority.use-case';
import { ApprovalOutcomesConsumer } from './escalations/approval-outcomes.consumer';
import { ApprovalRequestRpcHandlers } from './escalations/approval-request-rpc.handlers';
import { EscalationsController } from './escalations/escalations.controller';
import { EscalationsGauge } from './escalations/escalations-gauge';
import { EscalationsRepository } from './escalations/escalations.repository';
import { ExpireDueEscalations } from './escalations/use-cases/expire-due-escalations.use-case';
import { RecordEscalationVote } from './escalations/use-cases/record-escalation-vote.use-case';
import { ResolveEscalation } from './escalations/use-cases/resolve-escalation.use-case';
import { AgentAuthenticator } from './grants/agent-authenticator';
import { DpopVerifier } from './grants/dpop';
import { AgentEvidenceVerifier } from './grants/evidence/agent-evidence-verifier';
import { JwksCache } from './grants/evidence/jwks-cache';
import { TrustLists } from './grants/evidence/trust-lists';
import { GrantIssuer } from './grants/grant-issuer';
import { GrantsController } from './grants/grants.controller';
import { GrantsRepository } from './grants/grants.repository';
import { ReceiptSigner } from './grants/receipts';
import { RefreshAttestation } from './grants/use-cases/refresh-attestation.use-case';
import { OversightGrant } from './grants/use-cases/oversight-grant.use-case';
import { RequestGrant } from './grants/use-cases/request-grant.use-case';
import { OAP_SCHEMA } from './schema';
import { ChronicleDirectory } from './shared/chronicle';
import { IdempotencyStore } from './shared/idempotency-store';
import { ReplayCache } from './shared/replay-cache';
import { OAP_OUTBOX } from './tokens';
import { GrantStatusDirectory } from './verification/grant-status';
import { OapRpcHandlers } from './verification/oap-rpc.handlers';
import { RevokeGrant } from './verification/use-cases/revoke-grant.use-case';
import { VerificationController } from './verification/verification.controller';
import { VersionController } from './version.controller';
import { VouchesModule } from './vouches/vouches.module';
import { McpGateway } from './mcp/mcp-gateway';
import { McpServersController } from './mcp/mcp-servers.controller';
import { McpServersRepository } from './mcp/mcp-servers.repository';
import { MintAgentToken } from './token-exchange/mint-agent-token.use-case';
import { TokenExchangeRpcHandlers } from './token-exchange/token-exchange-rpc.handlers';

/** oap-authorizer: agent identities, authorities, POST /api/v1/grants and the 15-step cascade, agent tokens, capability documents, escalations, revocations, verification endpoints. */
@Module({
  imports: [VouchesModule],
  controllers: [
    CapabilitiesController,
    CapabilityDocumentInvalidations,
    ManifestTransparencyController,
    AgentsController,
    AgentIdentitiesController,
    ApplicationAgentsController,
    AuthoritiesController,
    GrantsController,
    EscalationsController,
    VerificationController,
    OapCredentialsController,
    VersionController,
    McpServersController,
    OapRpcHandlers,
    PersonDataRpcHandlers,
    ApprovalRequestRpcHandlers,
    AuthorityProposalRpcHandlers,
    PersonAuthoritiesRpcHandlers,
    TokenExchangeRpcHandlers,
    ApprovalOutcomesConsumer,
  ],
  providers: [
    { provide: OAP_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(OAP_SCHEMA), inject: [OutboxRegistry] },
    ApplicationFactsReader,
    AgentsRepository,
    AuthoritiesRepository,
    GrantsRepository,
    EscalationsRepository,
    EscalationsGauge,
    RegisterAgent,
    PublishCapabilities,
    RecordAgentReputation,
    CreateAuthority,
    SuspendAuthority,
    ResumeAuthority,
    RevokeAuthority,
    RequestGrant,
    OversightGrant,
    RefreshAttestation,
    GrantIssuer,
    ReceiptSigner,
    DpopVerifier,
    AgentAuthenticator,
    AgentEvidenceVerifier,
    TrustLists,
    JwksCache,
    ReplayCache,
    IdempotencyStore,
    ChronicleDirectory,
    IpRateLimiter,
    CapabilityDocuments,
    ResolveEscalation,
    RecordEscalationVote,
    MintAgentToken,
    McpServersRepository,
    McpGateway,
    ExpireDueEscalations,
    RevokeGrant,
    GrantStatusDirectory,
  ],
  exports: [
    VouchesModule,
    RegisterAgent,
    PublishCapabilities,
    RecordAgentReputation,
    CreateAuthority,
    ResolveEscalation,
    RecordEscalationVote,
    RevokeGrant,
  ],
})
export class OapAuthorizerModule {}
