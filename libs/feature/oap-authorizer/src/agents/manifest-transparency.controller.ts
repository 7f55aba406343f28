import { Controller, Get, Param } from '@nestjs/common';
import { Public } from '@svc/auth';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { IsArray, IsIn, IsObject, IsString } from 'class-validator';
import { oapError } from '../oap.errors';
import { AgentsRepository } from './agents.repository';

/** The wire shape of a published capability manifest version. */
export class ManifestVersionResponse {
  @IsIn(['capability_manifest']) object!: 'capability_manifest';
  @IsString() agent_id!: string;
  /** The manifest version (`tpcv_<region>_…`). */
  @IsString() version!: string;
  /** Whether this is the version the agent's capability document serves now. */
  @IsIn([true, false]) current!: boolean;
  /** Scopes the manifest declares (`id`, `label`, optional `parent`). */
  @IsArray() @IsObject({ each: true }) scopes!: Array<Record<string, unknown>>;
  @IsString({ each: true }) actions!: string[];
  /** SHA-256 hex of the canonical manifest (the drift reference of cascade step 15). */
  @IsString() manifest_sha256!: string;
  @IsString() published_at!: string;
}

/**
 * `/.well-known/transparency/agents/:agent_id/manifests/:version`: anonymous, one published
 * capability manifest version of an agent, as it was published (earlier versions stay readable so a
 * receipt's manifest reference can be checked). An unknown agent or version, a version of another
 * agent, or a suppressed agent answer the same 404.
 */
@Public()
@Controller('.well-known/transparency/agents/:agent_id/manifests')
export class ManifestTransparencyController {
  constructor(private readonly agents: AgentsRepository) {}

  @ApiDoc({ summary: 'A published capability manifest version of an agent (anonymous)', tag: 'OAP', errors: [404] })
  @Get(':version')
  @ApiResponseOf(ManifestVersionResponse)
  async get(@Param('agent_id') agentId: string, @Param('version') version: string): Promise<ManifestVersionResponse> {
    const notFound = () => oapError('manifest_not_found', 'Manifest not found', { agent_id: agentId, version });
    if (!isIdOf('agent', agentId) || !isIdOf('capability_version', version)) throw notFound();
    const agent = await this.agents.find(agentId);
    if (!agent || agent.suppressed) throw notFound();
    const found = await this.agents.findVersion(agentId, version);
    if (!found) throw notFound();
    const current = await this.agents.currentVersion(agentId);
    return {
      object: 'capability_manifest',
      agent_id: agentId,
      version: found.versionId,
      current: current?.versionId === found.versionId,
      scopes: found.scopes as unknown as Array<Record<string, unknown>>,
      actions: found.actions,
      manifest_sha256: found.manifestSha256,
      published_at: found.publishedAt.toISOString(),
    };
  }
}
