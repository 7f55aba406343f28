import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { ConsentStatus } from '../decision';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository } from '../decisions.repository';
import { tokenDigest } from '../session-token';

/** Verification answer (spec: returns `valid` and `status`). */
export interface ConsentTokenVerdict {
  valid: boolean;
  status: ConsentStatus;
}

/**
 * Verifies a consent token server-side. The first verification of a fulfilled token within its
 * 5 minutes answers valid=true and clears the token; any later one, or one past 5 minutes,
 * answers expired ("do not trust"). A consent revoked since answers revoked. The consent itself
 * stays fulfilled: token expiry does not withdraw it.
 */
@Injectable()
export class VerifyConsentToken {
  constructor(
    private readonly sessions: DecisionsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, consentToken: string): Promise<ConsentTokenVerdict> {
    const now = this.clock.now();
    const sha256 = tokenDigest(consentToken);
    return this.sessions.transaction(async (manager) => {
      const token = await this.sessions.findConsentTokenForUpdate(manager, principal.applicationId, sha256);
      if (!token) throw decisionError('consent_token_not_found', 'Consent token not found');
      if (token.sessionStatus === 'revoked') return { valid: false, status: 'revoked' };
      if (token.verifiedAt !== null || now.getTime() >= token.expiresAt.getTime()) return { valid: false, status: 'expired' };
      await this.sessions.markConsentTokenVerified(manager, sha256, now);
      return { valid: true, status: 'fulfilled' };
    });
  }
}
