import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { SignJWT } from 'jose';
import type { SubjectIdentifier } from './security-events';

/** RFC 8417 §2.3: the `typ` of a Security Event Token. */
export const SET_TYPE = 'secevent+jwt';

/** What a SET says, addressed to one stream. */
export interface SetContent {
  jti: string;
  audience: string[];
  subject: SubjectIdentifier;
  eventType: string;
  payload: Record<string, unknown>;
  issuedAt: Date;
  /** SSF `txn`: the source event's id, the same in every stream's SET of one change. */
  txn?: string;
}

/**
 * Signs Security Event Tokens (RFC 8417, profiled by SSF 1.0 §4) with the region's active signing
 * key (EdDSA, `kid` = `oap-<region>-v<N>`), published at `/.well-known/jwks.json`. The subject is
 * the top-level `sub_id` (SSF 1.0); a SET carries exactly one event and no `exp` (it is a
 * statement of fact, not a credential).
 */
@Injectable()
export class SetSigner {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly config: PlatformConfig,
  ) {}

  /** The transmitter's issuer: the region's public base URL. */
  get issuer(): string {
    return this.config.publicBaseUrl;
  }

  async sign(content: SetContent): Promise<string> {
    const key = await this.keys.activeKey();
    return new SignJWT({
      sub_id: content.subject,
      events: { [content.eventType]: content.payload },
      ...(content.txn ? { txn: content.txn } : {}),
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: SET_TYPE })
      .setIssuer(this.issuer)
      .setAudience(content.audience.length === 1 ? content.audience[0]! : content.audience)
      .setIssuedAt(Math.floor(content.issuedAt.getTime() / 1000))
      .setJti(content.jti)
      .sign(key.privateKey);
  }
}
