import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { signCompactJws, verifyCompactJws } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { SigningKeyStore } from '@svc/key-store';

/** JWS `typ` of a signed approval URL: a token of another kind (receipts, assertions) is refused. */
export const APPROVAL_URL_TYP = 'oap-approval-url+jwt';
/** The spec's `iss_role` of a signed approval URL: a delivery vehicle, not an authorization artefact. */
export const APPROVAL_URL_SIGNER = 'approval_url_signer';
/** The one purpose these tokens serve. */
export const APPROVAL_URL_PURPOSE = 'escalation_approval';
/** The path the signed URLs open (under the region's public base URL). */
export const APPROVAL_LINK_PATH = '/approvals';

/** What a signed approval URL names: one escalation's approval session, for one approver. */
export interface ApprovalUrlClaims {
  escalationId: string;
  approverId: string;
  /** SHA-256 (hex) of the approval session's token. */
  sessionTokenSha256: string;
  deadline: Date;
}

/** Why a signed approval URL does not open the page. */
export type ApprovalUrlRefusal = 'expired' | 'invalid';

/**
 * Signs and checks the approval URLs sent to approvers (spec: escalate → "signed approval URL
 * sent"; `iss_role` `approval_url_signer`). Compact Ed25519 JWS under the region's signing key,
 * `exp` = the escalation's deadline, single purpose (`purpose`, `aud` = the approval-link path,
 * one escalation, one approver). The token carries the session token's digest, never the token.
 */
@Injectable()
export class ApprovalUrls {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  private get audience(): string {
    return `${this.config.publicBaseUrl}${APPROVAL_LINK_PATH}`;
  }

  /** The signed URL for one approver of one escalation. */
  async sign(claims: ApprovalUrlClaims): Promise<string> {
    const key = await this.keys.activeKey();
    const now = this.clock.now();
    const token = await signCompactJws(
      key,
      {
        iss: this.config.publicBaseUrl,
        iss_role: APPROVAL_URL_SIGNER,
        aud: this.audience,
        sub: claims.approverId,
        purpose: APPROVAL_URL_PURPOSE,
        escalation_id: claims.escalationId,
        session_digest: claims.sessionTokenSha256,
        jti: randomUUID(),
        iat: Math.floor(now.getTime() / 1000),
        exp: Math.floor(claims.deadline.getTime() / 1000),
      },
      { typ: APPROVAL_URL_TYP },
    );
    return `${this.audience}/${token}`;
  }

  /** The claims of a signed approval URL's token, or why it does not open the page. */
  async verify(token: string): Promise<ApprovalUrlClaims | ApprovalUrlRefusal> {
    if (token.length > 4_096 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return 'invalid';
    let payload: Record<string, unknown>;
    try {
      // No tolerance: the link stops at the escalation's deadline, exactly.
      ({ payload } = await verifyCompactJws(token, (kid) => this.keys.publicKey(kid), {
        typ: APPROVAL_URL_TYP,
        now: this.clock.now(),
        clockToleranceSec: 0,
      }));
    } catch (error) {
      if (isDomainError(error) && error.code === 'jws_expired') return 'expired';
      if (isDomainError(error)) return 'invalid';
      throw error;
    }
    const { iss, iss_role: role, aud, sub, purpose, escalation_id: escalationId, session_digest: digest, exp } = payload;
    if (iss !== this.config.publicBaseUrl || role !== APPROVAL_URL_SIGNER || aud !== this.audience || purpose !== APPROVAL_URL_PURPOSE)
      return 'invalid';
    if (
      typeof sub !== 'string' ||
      typeof escalationId !== 'string' ||
      typeof digest !== 'string' ||
      !/^[0-9a-f]{64}$/.test(digest) ||
      typeof exp !== 'number'
    )
      return 'invalid';
    return { escalationId, approverId: sub, sessionTokenSha256: digest, deadline: new Date(exp * 1000) };
  }
}
