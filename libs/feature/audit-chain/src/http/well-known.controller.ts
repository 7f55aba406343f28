import { Controller, Get, Param } from '@nestjs/common';
import { Public } from '@svc/auth';
import { SigningKeyStore } from '@svc/key-store';
import { isIdOf } from '@svc/ids';
import { verifierKeyString } from '@svc/merkle';
import { ApiResponseOf } from '@svc/server';
import { auditError } from '../audit.errors';
import { AuditChain } from '../audit-chain.runtime';
import { AuditTransparencyResponse, WitnessConfigurationResponse } from './audit.responses';
import { checkpointView } from './views';

/** Checkpoints listed on a transparency page. */
const TRANSPARENCY_CHECKPOINTS = 20;

/** How to verify, stated once for every public document. */
const VERIFICATION = {
  chain_hash: 'hash = SHA-256(32 bytes of previous_hash || UTF-8 bytes of canonical); previous_hash of index 0 is 64 zeros',
  canonical_form: 'RFC 8785 JSON Canonicalization Scheme',
  merkle_tree: 'RFC 9162 section 2.1 over the entries in index order; leaf data = the 32-byte entry hash',
  checkpoint_format: 'https://c2sp.org/tlog-checkpoint (extension lines: "head <hex entry hash>", "time <POSIX seconds>")',
  signature_format: 'https://c2sp.org/signed-note (Ed25519, key name = origin)',
  cosignature_format: 'https://c2sp.org/tlog-cosignature (cosignature/v1)',
  witness_protocol: 'https://c2sp.org/tlog-witness',
  endpoints: {
    checkpoints: '/api/v1/audit/checkpoints',
    latest_checkpoint: '/api/v1/audit/checkpoints/latest',
    consistency_proof: '/api/v1/audit/consistency_proof?from=<sequence>&to=<sequence>',
    inclusion_proof: '/api/v1/audit/entries/<audit_rec id>/inclusion_proof (API token, scope audit:verify)',
    verify: '/api/v1/audit/verify (API token, scope audit:verify)',
  },
  cli: 'npx svc-audit verify --region <region> [--from-checkpoint <sequence>]',
};

/** Public discovery of the audit log: witness configuration and transparency pages, no personal data. */
@Public()
@Controller('.well-known')
export class WellKnownController {
  constructor(
    private readonly chain: AuditChain,
    private readonly keys: SigningKeyStore,
  ) {}

  @Get('witness-configuration')
  @ApiResponseOf(WitnessConfigurationResponse)
  async witnessConfiguration(): Promise<WitnessConfigurationResponse> {
    const keys = await this.keys.list();
    const logKeys = keys.map((key) => ({
      kid: key.kid,
      status: key.status,
      verifier_key: verifierKeyString(this.chain.origin, new Uint8Array(Buffer.from(key.publicJwk.x, 'base64url'))),
    }));
    const latest = await this.chain.checkpoints.latest();
    const witness = this.chain.witness;
    const health = this.chain.witnessHealth;
    return {
      object: 'witness_configuration',
      region: this.chain.region,
      origin: this.chain.origin,
      genesis_hash: await this.chain.genesisHash(),
      checkpoint_interval_seconds: this.chain.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS,
      log_keys: logKeys,
      witnesses: witness
        ? [
            {
              name: witness.name,
              url: this.chain.config.AUDIT_WITNESS_URL,
              verifier_key: witness.verifierKey,
              status: health.ok ? 'ok' : 'unreachable',
              last_success_at: health.lastSuccessAt?.toISOString() ?? null,
            },
          ]
        : [],
      latest_checkpoint: latest ? checkpointView(latest) : null,
      verification: VERIFICATION,
    };
  }

  @Get('transparency/:application_id')
  @ApiResponseOf(AuditTransparencyResponse)
  async application(@Param('application_id') applicationId: string): Promise<AuditTransparencyResponse> {
    if (!isIdOf('application', applicationId))
      throw auditError('application_not_found', 'Application not found', { application_id: applicationId });
    const summary = await this.chain.entries.subjectSummary('application_id', applicationId);
    if (!summary) throw auditError('application_not_found', 'Application not found', { application_id: applicationId });
    return { object: 'audit_transparency', application_id: applicationId, ...(await this.page(summary)) };
  }

  @Get('transparency/agents/:agent_id')
  @ApiResponseOf(AuditTransparencyResponse)
  async agent(@Param('agent_id') agentId: string): Promise<AuditTransparencyResponse> {
    if (!isIdOf('agent', agentId)) throw auditError('agent_not_found', 'Agent not found', { agent_id: agentId });
    const summary = await this.chain.entries.subjectSummary('agent_id', agentId);
    if (!summary) throw auditError('agent_not_found', 'Agent not found', { agent_id: agentId });
    return { object: 'audit_transparency', agent_id: agentId, ...(await this.page(summary)) };
  }

  private async page(summary: {
    count: number;
    first: number;
    last: number;
  }): Promise<Omit<AuditTransparencyResponse, 'object' | 'application_id' | 'agent_id'>> {
    const checkpoints = await this.chain.checkpoints.listCovering(summary.first + 1, TRANSPARENCY_CHECKPOINTS);
    return {
      region: this.chain.region,
      origin: this.chain.origin,
      entry_count: summary.count,
      first_index: summary.first,
      last_index: summary.last,
      checkpoints: checkpoints.map(checkpointView),
      verification: VERIFICATION,
    };
  }
}
