import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newId } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import {
  DEFAULT_TTL_SECONDS,
  type CreatedVia,
  type DecisionSession,
  type DeliveryMode,
  type PrincipalBinding,
  type QuorumType,
} from '../decision';
import type { CreateDecisionBody } from '../decisions.dto';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository } from '../decisions.repository';
import { FlowLookup, type GoverningFlow } from '../flow-lookup';
import { PrincipalAssertionsRepository } from '../principal-assertions';
import { requiredVotes } from '../quorum';
import { tokenDigest } from '../session-token';

/** Fields that only approval and signing sessions carry. */
const VOTE_ONLY_FIELDS = ['trigger_type', 'reference', 'proposal', 'participants', 'quorum'] as const;

/** The person of a new session and how the server bound it (null: unbound). */
interface BoundPrincipal {
  principalId: string | null;
  principalBinding: PrincipalBinding | null;
}

/**
 * Parses an embed origin the way allowed origins are stored (scheme + host + optional port);
 * anything with a path, query, fragment or credentials is refused.
 */
function embedOriginOf(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw decisionError('embed_origin_invalid', 'embed_origin must be an origin such as https://app.example.com', {
      field: 'embed_origin',
    });
  }
  const bare = input.slice(input.indexOf('//') + 2);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || /[/?#]/.test(bare)) {
    throw decisionError('embed_origin_invalid', 'embed_origin must be an origin only: scheme, host and optional port', {
      field: 'embed_origin',
    });
  }
  return url.origin;
}

/**
 * Mints a decision session (POST /api/v1/decisions and the deprecated consent_sessions alias).
 * API tokens may mint any kind; a publishable key only consent sessions, from a browser whose
 * `Origin` is one of the application's allowed origins, for an embed_origin that is one too
 * (spec, Authentication rules 2–3). A consent session binds the flow's active version; a draft
 * flow refuses.
 *
 * The person is bound by the server only: an API token may name `principal_id` (binding
 * `api_token`); a publishable key never may (422) and instead passes a single-use
 * `principal_assertion` its application's server obtained (binding `principal_assertion`).
 * Otherwise the session is unbound and its decision is nobody's consent.
 */
@Injectable()
export class CreateDecisionSession {
  constructor(
    private readonly sessions: DecisionsRepository,
    private readonly flows: FlowLookup,
    private readonly assertions: PrincipalAssertionsRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** `requestOrigin` is the request's Origin header: required, and allowed, with a publishable key. */
  async execute(
    principal: Principal,
    body: CreateDecisionBody,
    via: CreatedVia,
    requestOrigin?: string,
  ): Promise<{ session: DecisionSession; sessionToken: string }> {
    const browser = principal.kind === 'publishable_key';
    if (browser && body.kind !== 'consent') {
      throw decisionError(
        'kind_not_allowed_for_publishable_key',
        'A publishable key can only create consent sessions; use an API token server-side',
        { kind: body.kind },
      );
    }
    if (browser && body.principal_id !== undefined) {
      throw decisionError(
        'principal_not_allowed_for_publishable_key',
        'principal_id cannot be set with a publishable key: name the person server-side (API token) or pass a principal_assertion',
        { field: 'principal_id' },
      );
    }
    if (body.principal_id !== undefined && body.principal_assertion !== undefined) {
      throw decisionError('principal_conflict', 'Name the person with principal_id or principal_assertion, not both', {
        field: 'principal_assertion',
      });
    }
    if (body.kind !== 'consent' && body.principal_assertion !== undefined) {
      throw decisionError('field_not_applicable', 'principal_assertion applies to consent sessions', {
        field: 'principal_assertion',
        kind: body.kind,
      });
    }
    if (browser) await this.checkRequestOrigin(principal, requestOrigin);
    const embedOrigin = await this.checkedEmbedOrigin(principal, body.embed_origin, browser);

    let flow: GoverningFlow | undefined;
    let participants: string[] = [];
    let quorumType: QuorumType | null = null;
    let quorumRequired: number | null = null;
    if (body.kind === 'consent') {
      for (const field of VOTE_ONLY_FIELDS) {
        if (body[field] !== undefined)
          throw decisionError('field_not_applicable', `${field} does not apply to a consent session`, { field, kind: body.kind });
      }
      if (body.flow_id === undefined)
        throw decisionError('flow_required', 'flow_id is required for a consent session', { field: 'flow_id' });
      flow = await this.flows.activeFlow(principal.applicationId, body.flow_id);
    } else {
      if (body.flow_id !== undefined)
        throw decisionError('field_not_applicable', `flow_id does not apply to a ${body.kind} session`, {
          field: 'flow_id',
          kind: body.kind,
        });
      if (body.kind === 'signature_request' && body.trigger_type !== undefined) {
        throw decisionError('field_not_applicable', 'trigger_type applies to approval sessions only', {
          field: 'trigger_type',
          kind: body.kind,
        });
      }
      participants = body.participants ?? (body.principal_id ? [body.principal_id] : []);
      if (participants.length === 0) {
        throw decisionError('participant_required', `A ${body.kind} session needs principal_id or participants`, { field: 'participants' });
      }
      quorumType = body.quorum?.type ?? 'all';
      if ((quorumType === 'threshold') !== (body.quorum?.threshold !== undefined)) {
        throw decisionError('quorum_invalid', 'quorum.threshold is required with type threshold and only then', {
          field: 'quorum.threshold',
        });
      }
      if (body.quorum?.threshold !== undefined && body.quorum.threshold > participants.length) {
        throw decisionError('quorum_invalid', 'quorum.threshold cannot exceed the number of participants', {
          field: 'quorum.threshold',
          participants: participants.length,
        });
      }
      quorumRequired = requiredVotes(quorumType, participants.length, body.quorum?.threshold);
    }

    const now = this.clock.now();
    const sessionToken = newId('decision_session_token');
    const deliveryMode: DeliveryMode = body.delivery_mode ?? (body.kind !== 'consent' ? 'direct' : embedOrigin ? 'embed' : 'redirect');
    const tokenSha256 = tokenDigest(sessionToken);
    // Consuming a principal assertion commits with the insert; the insert alone is one statement, committed by itself.
    const write =
      body.principal_assertion === undefined
        ? this.sessions.withoutTransaction.bind(this.sessions)
        : this.sessions.transaction.bind(this.sessions);
    const session = await write(async (manager) => {
      const bound = await this.boundPrincipal(manager, principal, body, now);
      const inserted = await this.sessions.insertReturning(
        manager,
        {
          tokenSha256,
          sessionToken,
          applicationId: principal.applicationId,
          kind: body.kind,
          status: 'pending',
          flowId: flow?.flowId ?? null,
          flowVersion: flow?.version ?? null,
          consentPath: flow?.consentPath ?? null,
          purposes: flow?.purposes ?? [],
          deliveryMode,
          embedOrigin,
          ...bound,
          triggerType: body.trigger_type ?? null,
          reference: body.reference ?? null,
          quorumType,
          quorumRequired,
          participants,
          proposal: body.proposal ?? null,
          decisionUrl: `${this.config.publicBaseUrl}/decisions/${sessionToken}`,
          deadline: new Date(now.getTime() + (body.ttl_seconds ?? DEFAULT_TTL_SECONDS[body.kind]) * 1000),
          createdVia: via,
        },
        now,
      );
      return inserted ?? (await this.sessions.find(tokenSha256, { manager }))!;
    });
    return { session, sessionToken };
  }

  /** Who the session is for: named by the API token, asserted by the application's server, or nobody yet. */
  private async boundPrincipal(manager: EntityManager, principal: Principal, body: CreateDecisionBody, now: Date): Promise<BoundPrincipal> {
    if (body.principal_id !== undefined) return { principalId: body.principal_id, principalBinding: 'api_token' };
    if (body.principal_assertion === undefined) return { principalId: null, principalBinding: null };
    const asserted = await this.assertions.consume(manager, tokenDigest(body.principal_assertion), principal.applicationId, now);
    if (!asserted || (asserted.flowId !== null && asserted.flowId !== body.flow_id)) {
      throw decisionError(
        'principal_assertion_invalid',
        'principal_assertion is unknown, expired, already used, or issued for another flow',
        { field: 'principal_assertion' },
      );
    }
    return { principalId: asserted.principalId, principalBinding: 'principal_assertion' };
  }

  /** A browser call must come from one of the application's allowed origins (spec, Authentication rule 3). */
  private async checkRequestOrigin(principal: Principal, requestOrigin: string | undefined): Promise<void> {
    if (requestOrigin === undefined || requestOrigin === '') {
      throw decisionError(
        'origin_not_allowed',
        "A publishable key is accepted only from a browser page on one of the application's allowed origins (Origin header missing)",
        { header: 'origin' },
      );
    }
    let origin: string | undefined;
    try {
      origin = new URL(requestOrigin).origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || origin !== requestOrigin || !(await this.sessions.isAllowedOrigin(principal.applicationId, origin))) {
      throw decisionError('origin_not_allowed', "The Origin of this request is not one of the application's allowed origins", {
        header: 'origin',
        origin: requestOrigin.slice(0, 200),
      });
    }
  }

  private async checkedEmbedOrigin(principal: Principal, input: string | undefined, browser: boolean): Promise<string | null> {
    if (input === undefined) {
      if (browser)
        throw decisionError('embed_origin_not_allowed', 'embed_origin is required with a publishable key', { field: 'embed_origin' });
      return null;
    }
    const origin = embedOriginOf(input);
    if (!(await this.sessions.isAllowedOrigin(principal.applicationId, origin))) {
      throw decisionError('embed_origin_not_allowed', "embed_origin is not one of the application's allowed origins", {
        field: 'embed_origin',
        embed_origin: origin,
      });
    }
    return origin;
  }
}
