import { Controller, Get } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { Public } from '@svc/auth';
import { PlatformConfig, REGIONS, regionUrls } from '@svc/config';
import { OAP_CONFORMANCE, OAP_VERSION } from './schema';
import { OapVersionResponse } from './version.response';

/** Where the OAP specification is published. */
export const OAP_SPEC_URL = 'https://docs.svc.example/oap/1.0';

/** Capabilities advertised with `conductor_full` (what this build implements). */
export const CONFORMANCE_CAPABILITIES = [
  'cascade_15_step',
  'dpop_bound_agent_tokens',
  'authorizer_receipts_ed25519',
  'idempotency_key',
  'escalation_quorum',
  'delegation_chain_validation',
  'oidc_a_agent_credentials',
  'agent_attestation_vendor_jwt_v1',
  'revocation_list',
  'capability_documents',
];

/** `GET /api/v1/oap/version` (public): the wire versions, issuers and conformance of this service. */
@Controller('api/v1/oap/version')
@Public()
export class VersionController {
  constructor(
    private readonly config: PlatformConfig,
    private readonly rpc: RpcClient,
  ) {}

  @ApiDoc({ summary: 'OAP wire versions, regional issuers, chronicle genesis hashes and conformance levels', tag: 'OAP', errors: [] })
  @Get()
  @ApiResponseOf(OapVersionResponse)
  async get(): Promise<OapVersionResponse> {
    const urls = regionUrls(this.config);
    const genesis = await Promise.all(
      REGIONS.map(async (region) => {
        const reply = await this.rpc.tryCallInRegion(region, 'audit.get_chain_info', {}, 500);
        return [region, reply?.genesisHash || null] as const;
      }),
    );
    return {
      oap_ver: OAP_VERSION,
      supported: [OAP_VERSION],
      current: OAP_VERSION,
      deprecated: [],
      regional_issuers: Object.fromEntries(REGIONS.map((r) => [r, urls[r] ?? null])),
      chronicle_genesis_hashes: Object.fromEntries(genesis),
      oap_conformance: OAP_CONFORMANCE,
      conformance_capabilities: CONFORMANCE_CAPABILITIES,
      oversight_conformance: 'oversight_full',
      oversight_conformance_levels: ['oversight_basic', 'oversight_full'],
      spec_url: OAP_SPEC_URL,
    } satisfies OapVersionResponse;
  }
}
