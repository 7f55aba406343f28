import type { DecisionPageStateResponse, InboxRowResponse } from './decision.responses';
import { allowedConsentActions } from './consent-transitions';
import type { ConsentStatus, DecisionSession } from './decision';
import type { DecisionSessionCreatedResponse, DecisionSessionResponse } from './decision.responses';

function embedUrl(session: DecisionSession): string | null {
  return session.kind === 'consent' ? `${session.decisionUrl}/embed` : null;
}

/**
 * Kind-uniform mint response of POST /api/v1/decisions (and the consent_sessions alias):
 * `session_token`, `decision_url`, `embed_url` (consent; null otherwise), `deadline`, `kind`,
 * `status`; approvals also carry `approval_ttl_at` (= deadline).
 */
export function mintedView(session: DecisionSession, sessionToken: string): Record<string, unknown> {
  return {
    object: 'decision_session',
    session_token: sessionToken,
    kind: session.kind,
    status: session.status,
    decision_url: session.decisionUrl,
    embed_url: embedUrl(session),
    deadline: session.deadline.toISOString(),
    delivery_mode: session.deliveryMode,
    flow_id: session.flowId,
    flow_version: session.flowVersion,
    created_at: session.createdAt.toISOString(),
    ...(session.kind === 'approval' ? { approval_ttl_at: session.deadline.toISOString() } : {}),
  } satisfies DecisionSessionCreatedResponse;
}

/** Server-side view (API token): everything the application may know about its session. */
export function sessionView(session: DecisionSession): Record<string, unknown> {
  return {
    object: 'decision_session',
    session_token: session.sessionToken,
    kind: session.kind,
    status: session.status,
    outcome: session.outcome,
    decision_url: session.decisionUrl,
    embed_url: embedUrl(session),
    deadline: session.deadline.toISOString(),
    delivery_mode: session.deliveryMode,
    embed_origin: session.embedOrigin,
    flow_id: session.flowId,
    flow_version: session.flowVersion,
    consent_path: session.consentPath,
    purposes: session.purposes,
    principal_id: session.principalId,
    principal_binding: session.principalBinding ?? 'unbound',
    trigger_type: session.triggerType,
    reference: session.reference,
    quorum: session.quorumType ? { type: session.quorumType, required: session.quorumRequired, participants: session.participants } : null,
    proposal: session.proposal,
    counter_proposal: session.counterProposal,
    created_at: session.createdAt.toISOString(),
    completed_at: session.completedAt?.toISOString() ?? null,
    exchanged: session.exchangedAt !== null,
  } satisfies DecisionSessionResponse;
}

/**
 * What the hosted decision page (issue 5) needs, read with the session token alone: no
 * application internals beyond the decision itself.
 */
export function pageView(session: DecisionSession): Record<string, unknown> {
  return {
    object: 'decision_page_state',
    kind: session.kind,
    status: session.status,
    outcome: session.outcome,
    deadline: session.deadline.toISOString(),
    delivery_mode: session.deliveryMode,
    flow_id: session.flowId,
    flow_version: session.flowVersion,
    consent_path: session.consentPath,
    trigger_type: session.triggerType,
    proposal: session.proposal,
    quorum: session.quorumType
      ? { type: session.quorumType, required: session.quorumRequired, participants: session.participants.length }
      : null,
    allowed_actions:
      session.kind === 'consent'
        ? allowedConsentActions(session.status as ConsentStatus, session.consentPath ?? 'standard')
        : session.completedAt === null
          ? session.kind === 'approval'
            ? ['approve', 'deny', 'counter']
            : ['sign', 'decline', 'counter']
          : [],
  } satisfies DecisionPageStateResponse;
}

/** One inbox row; links to the unified decision page (spec, What the service does 9). */
export function inboxRowView(session: DecisionSession): InboxRowResponse {
  return {
    session_token: session.sessionToken,
    kind: session.kind,
    status: session.status,
    application_id: session.applicationId,
    trigger_type: session.triggerType,
    flow_id: session.flowId,
    reference: session.reference,
    deadline: session.deadline.toISOString(),
    created_at: session.createdAt.toISOString(),
    decision_url: session.decisionUrl,
  };
}
