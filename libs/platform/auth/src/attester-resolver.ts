import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import type { ResolvedCredential } from './principal';

/**
 * Resolves a trusted attester token (by its SHA-256) to the application it acts for, checking a
 * permission. oversight-witness owns attesters and answers over NATS; its domain errors
 * (401 invalid_token, 403 attester_suspended, 403 insufficient_permission) reach the caller as they are.
 */
@Injectable()
export class AttesterResolver {
  constructor(private readonly rpc: RpcClient) {}

  async resolve(sha256Hex: string, permission: string): Promise<ResolvedCredential> {
    const attester = await this.rpc.call('oversight.authenticate_attester', { tokenSha256: sha256Hex, permission });
    const applicationId = attester.scopeApplicationId || attester.applicationId;
    const application = await this.rpc.call('gateway.get_application', { applicationId });
    return {
      kind: 'attester_token',
      applicationId,
      credentialId: attester.attesterId,
      scopes: attester.permissions,
      environment: application.environment === 'production' ? 'production' : 'development',
      region: this.rpc.region,
      mode: application.mode,
    };
  }
}
