import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import type { EgressEnvironment } from '@svc/egress';
import { validationError } from '@svc/errors';
import { AttestersRepository } from '../attesters/attesters.repository';
import { oversightError } from '../oversight.errors';
import {
  DEFAULT_POLICY_ENGINE_TIMEOUT_MS,
  checkCredentialHeader,
  checkPolicyEngineTarget,
  checkPolicyEngineUrl,
  type PolicyEngine,
} from './policy-engine';
import type { SetPolicyEngineBody } from './policy-engines.dto';
import { PolicyEnginesRepository } from './policy-engines.repository';

/**
 * Configures the application's policy engine. The URL is checked like a webhook endpoint (https;
 * a public address for production applications; the egress policy checks again at every call,
 * DNS pinned). The attester must be the application's own, active, with `attestations:submit`:
 * the engine's answers are witnessed in its name, under the same rules as its own submissions.
 * The credential is encrypted under the key-encryption key with the application id as AAD, so a
 * ciphertext copied onto another application's row does not decrypt.
 */
@Injectable()
export class SetPolicyEngine {
  constructor(
    private readonly engines: PolicyEnginesRepository,
    private readonly attesters: AttestersRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, environment: EgressEnvironment, body: SetPolicyEngineBody): Promise<PolicyEngine> {
    const credentialType = body.credential_type ?? 'none';
    if (credentialType === 'none' && body.credential !== undefined) {
      throw validationError([
        { field: 'credential', constraint: 'forbidden', message: 'credential needs credential_type bearer or header' },
      ]);
    }
    if (credentialType !== 'none' && body.credential === undefined) {
      throw validationError([
        { field: 'credential', constraint: 'isDefined', message: `credential is required with credential_type ${credentialType}` },
      ]);
    }
    if (credentialType !== 'header' && body.credential_header !== undefined) {
      throw validationError([
        { field: 'credential_header', constraint: 'forbidden', message: 'credential_header needs credential_type header' },
      ]);
    }
    if (credentialType === 'header' && body.credential_header === undefined) {
      throw validationError([
        { field: 'credential_header', constraint: 'isDefined', message: 'credential_header is required with credential_type header' },
      ]);
    }
    const header = body.credential_header === undefined ? null : checkCredentialHeader(body.credential_header);
    const url = checkPolicyEngineUrl(body.url, environment);
    await checkPolicyEngineTarget(url, environment);
    const attester = await this.attesters.find(applicationId, body.attester_id);
    if (!attester || attester.status !== 'active' || !attester.permissions.includes('attestations:submit')) {
      throw oversightError(
        'policy_engine_attester_invalid',
        'attester_id must name an active trusted attester of the application with attestations:submit',
        { field: 'attester_id' },
      );
    }
    return this.engines.upsert(
      {
        applicationId,
        baseUrl: url,
        attesterId: attester.id,
        credentialType,
        credentialHeader: header,
        credentialEnc: body.credential === undefined ? null : this.kek.encrypt(Buffer.from(body.credential, 'utf8'), applicationId),
        timeoutMs: body.timeout_ms ?? DEFAULT_POLICY_ENGINE_TIMEOUT_MS,
      },
      this.clock.now(),
    );
  }
}
