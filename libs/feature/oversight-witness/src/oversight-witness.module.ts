import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { ApprovalOutcomes } from './attestations/approval-outcomes.consumer';
import { AttestationsController } from './attestations/attestations.controller';
import { AttestationsRepository } from './attestations/attestations.repository';
import { ResolveEscalation } from './attestations/use-cases/resolve-escalation.use-case';
import { SubmitAttestation } from './attestations/use-cases/submit-attestation.use-case';
import { WitnessReceiptSigner } from './attestations/witness-receipt';
import { AttesterAuthGuard } from './attesters/attester-auth.guard';
import { AttestersController } from './attesters/attesters.controller';
import { AttestersRepository } from './attesters/attesters.repository';
import { AuthenticateAttester } from './attesters/use-cases/authenticate-attester.use-case';
import { CreateAttester } from './attesters/use-cases/create-attester.use-case';
import { DestroyAttester } from './attesters/use-cases/destroy-attester.use-case';
import { GrantElevation, RequestElevation } from './attesters/use-cases/request-elevation.use-case';
import { RotateAttester } from './attesters/use-cases/rotate-attester.use-case';
import { SuspendAttester } from './attesters/use-cases/suspend-attester.use-case';
import { UnsuspendAttester } from './attesters/use-cases/unsuspend-attester.use-case';
import { AuthZenAttestationAdapter } from './authzen/authzen-attestation.adapter';
import { RecordHeartbeat } from './heartbeats/record-heartbeat.use-case';
import { AgentClassRoutesController } from './routing/agent-class-routes.controller';
import { AgentClassRoutesRepository } from './routing/agent-class-routes.repository';
import { OversightRpcHandlers } from './routing/oversight-rpc.handlers';
import { ResolveAgentClassRoute } from './routing/resolve-agent-class-route.use-case';
import { EvaluateGrant } from './policy-engines/evaluate-grant.use-case';
import { PolicyEnginesController } from './policy-engines/policy-engines.controller';
import { PolicyEnginesRepository } from './policy-engines/policy-engines.repository';
import { SetPolicyEngine } from './policy-engines/set-policy-engine.use-case';
import { OVERSIGHT_SCHEMA } from './schema';
import { OVERSIGHT_OUTBOX } from './tokens';

/** oversight-witness: trusted attesters, attestations, heartbeats, witness receipts, hybrid routing, the customer's policy engine. */
@Module({
  // The routes controller comes before the attestations controller only for readability:
  // Fastify matches the static `agent_class_routes` / `heartbeat` segments before `:attestation_id`.
  controllers: [
    AttestersController,
    AgentClassRoutesController,
    PolicyEnginesController,
    AttestationsController,
    OversightRpcHandlers,
    ApprovalOutcomes,
  ],
  providers: [
    { provide: OVERSIGHT_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(OVERSIGHT_SCHEMA), inject: [OutboxRegistry] },
    AttestersRepository,
    AttestationsRepository,
    AgentClassRoutesRepository,
    AuthenticateAttester,
    AttesterAuthGuard,
    WitnessReceiptSigner,
    CreateAttester,
    RotateAttester,
    SuspendAttester,
    UnsuspendAttester,
    DestroyAttester,
    RequestElevation,
    GrantElevation,
    SubmitAttestation,
    ResolveEscalation,
    RecordHeartbeat,
    ResolveAgentClassRoute,
    AuthZenAttestationAdapter,
    PolicyEnginesRepository,
    SetPolicyEngine,
    EvaluateGrant,
  ],
  exports: [
    AuthenticateAttester,
    GrantElevation,
    ResolveEscalation,
    ResolveAgentClassRoute,
    AuthZenAttestationAdapter,
    SubmitAttestation,
    AttestersRepository,
  ],
})
export class OversightWitnessModule {}
