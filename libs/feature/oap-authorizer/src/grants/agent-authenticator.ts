import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import type { FastifyRequest } from 'fastify';
import { oapError } from '../oap.errors';
import { DpopVerifier } from './dpop';
import { DPOP_CHALLENGE } from './jws-algorithms';
import type { Grant } from './grant';
import { GrantsRepository } from './grants.repository';

const AGENT_TOKEN = /^ra_agent_[A-Za-z0-9_-]{43}$/;

/**
 * Authenticates an agent call: `Authorization: DPoP ra_agent_…` (or `Bearer`, as the spec's table
 * shows) plus a DPoP proof bound to that token (`ath`) and to this request (`htm`, `htu`). The
 * proof key must be the grant's `agent_dpop_jkt` and the URL's grant id the token's grant, else
 * `agent_token_grant_mismatch` (401).
 */
@Injectable()
export class AgentAuthenticator {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly dpop: DpopVerifier,
    private readonly config: PlatformConfig,
  ) {}

  async authenticate(request: FastifyRequest, urlGrantId: string): Promise<Grant> {
    const authorization = request.headers.authorization;
    const match = /^(DPoP|Bearer) (\S+)$/i.exec(authorization ?? '');
    if (!match?.[2] || !AGENT_TOKEN.test(match[2])) {
      throw oapError('agent_token_invalid', 'Authorization must be "DPoP ra_agent_…"', undefined, { 'WWW-Authenticate': DPOP_CHALLENGE });
    }
    const token = match[2];
    const path = request.url.split('?', 1)[0] ?? '/';
    const proof = await this.dpop.verify({
      header: request.headers.dpop,
      method: request.method,
      url: `${this.config.publicBaseUrl}${path}`,
      accessToken: token,
    });
    const grant = await this.grants.findByTokenDigest(sha256Hex(token));
    if (!grant)
      throw oapError('agent_token_invalid', 'The agent token is not valid', undefined, {
        'WWW-Authenticate': 'DPoP error="invalid_token"',
      });
    if (proof.jkt !== grant.dpopJkt)
      throw oapError('agent_token_grant_mismatch', "The DPoP key is not the grant's agent_dpop_jkt", { reason: 'dpop_key_mismatch' });
    if (grant.id !== urlGrantId)
      throw oapError('agent_token_grant_mismatch', "The URL's grant is not the token's grant", { reason: 'grant_id_mismatch' });
    if (grant.status === 'revoked') throw oapError('grant_revoked', 'The grant is revoked');
    return grant;
  }
}
