import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { PlatformConfig, isRegion } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { parseId } from '@svc/ids';
import type { ReceiptJwk } from '@svc/sdk-receipts-verify';
import { Clock } from '@svc/config';
import { GrantsRepository } from '../grants/grants.repository';

/** A grant's status as its home region sees it now. */
export interface GrantStatus {
  found: boolean;
  status: 'active' | 'revoked' | 'unknown';
  revokedAt: string | null;
  consumedAt: string | null;
}

/** A region's signing key id, `oap-<region>-v<N>` (spec, receipt header). */
const SIGNING_KID = /^oap-([a-z]{2})-v[0-9]{1,9}$/;

/** A verification key by kid: found, absent, or its home region could not be asked. */
export type SigningKeyLookup = { jwk: ReceiptJwk } | { jwk: undefined; unavailable: boolean };

/**
 * Answers "is this grant revoked, and what is key `kid`?" for svc-verify in any region: locally
 * for grants and keys homed here, otherwise by asking the home region over NATS request/reply
 * (`oap.grant_status`). Asking the home region at verification time makes a revocation visible
 * everywhere as soon as it commits — well inside the spec's 30 s — with no replicated state to
 * lag; an unreachable home region yields `unknown`, which svc-verify treats as not valid.
 */
@Injectable()
export class GrantStatusDirectory {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly keys: SigningKeyStore,
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  private readonly foreignKeys = new Map<string, ReceiptJwk>();

  /** Local answer (also what the RPC handler serves); an empty grant id asks for the key alone. */
  async local(grantId: string, kid: string): Promise<GrantStatus & { jwk?: ReceiptJwk }> {
    const grant = grantId ? await this.grants.find(grantId) : undefined;
    const jwk = kid ? await this.localJwk(kid) : undefined;
    if (!grant) return { found: false, status: 'unknown', revokedAt: null, consumedAt: null, jwk };
    return {
      found: true,
      status: grant.status,
      revokedAt: grant.revokedAt?.toISOString() ?? null,
      consumedAt: grant.consumedAt?.toISOString() ?? null,
      jwk,
    };
  }

  async status(grantId: string, kid: string): Promise<GrantStatus & { jwk?: ReceiptJwk }> {
    const home = parseId(grantId)?.region;
    if (!home || home === this.config.REGION) return this.local(grantId, kid);
    const reply = await this.rpc.tryCallInRegion(home, 'oap.grant_status', { grantId, kid });
    if (!reply || reply.error?.code) return { found: false, status: 'unknown', revokedAt: null, consumedAt: null };
    return {
      found: reply.found,
      status: reply.status === 'active' || reply.status === 'revoked' ? reply.status : 'unknown',
      revokedAt: reply.revokedAt || null,
      consumedAt: reply.consumedAt || null,
      jwk: reply.jwkJson ? (JSON.parse(reply.jwkJson) as ReceiptJwk) : undefined,
    };
  }

  /**
   * The public key `kid` names, from the region the kid names (its own region signs every
   * receipt), without naming any grant: svc-verify checks a signature before it learns anything
   * about the grant the payload claims. Another region is asked over `oap.grant_status` with an
   * empty grant id. Found keys are kept: a kid never names another key.
   */
  async signingKey(kid: string): Promise<SigningKeyLookup> {
    const region = SIGNING_KID.exec(kid)?.[1];
    if (!region || !isRegion(region)) return { jwk: undefined, unavailable: false };
    const known = this.foreignKeys.get(kid);
    if (known) return { jwk: known };
    if (region === this.config.REGION) {
      const jwk = await this.localJwk(kid);
      return jwk ? { jwk } : { jwk: undefined, unavailable: false };
    }
    const reply = await this.rpc.tryCallInRegion(region, 'oap.grant_status', { grantId: '', kid });
    if (!reply || reply.error?.code) return { jwk: undefined, unavailable: true };
    if (!reply.jwkJson) return { jwk: undefined, unavailable: false };
    const jwk = JSON.parse(reply.jwkJson) as ReceiptJwk;
    this.foreignKeys.set(kid, jwk);
    return { jwk };
  }

  /** One-shot consumption in the grant's home region; undefined when it could not be reached. */
  async consume(grantId: string): Promise<{ found: boolean; consumed: boolean } | undefined> {
    const home = parseId(grantId)?.region;
    if (!home || home === this.config.REGION) {
      const grant = await this.grants.find(grantId);
      if (!grant) return { found: false, consumed: false };
      return { found: true, consumed: await this.grants.consume(grantId, this.clock.now()) };
    }
    const reply = await this.rpc.tryCallInRegion(home, 'oap.consume_grant', { grantId });
    if (!reply || reply.error?.code) return undefined;
    return { found: reply.found, consumed: reply.consumed };
  }

  private async localJwk(kid: string): Promise<ReceiptJwk | undefined> {
    const { keys } = await this.keys.jwks();
    return keys.find((k) => k.kid === kid) as ReceiptJwk | undefined;
  }
}
