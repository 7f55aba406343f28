import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, Public, RequireScopes, type Principal } from '@svc/auth';
import { ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import {
  AuditCheckpointResponse,
  AuditConsistencyProofResponse,
  AuditInclusionProofResponse,
  AuditRecordResponse,
  AuditVerificationResponse,
} from './audit.responses';
import { auditError } from '../audit.errors';
import { AuditChain } from '../audit-chain.runtime';
import { buildConsistencyProof, buildInclusionProof, ownEntry } from '../proofs/build-proofs';
import { CheckpointsQuery, ConsistencyProofQuery, EntriesQuery, InclusionProofQuery, VerifyQuery } from './audit.dto';
import { checkpointView, entryView, verificationView } from './views';

/**
 * The audit API.
 *
 * Who may call what (a decision of ours, the spec being silent):
 * - checkpoints and consistency proofs are public: sizes, roots, signatures, no entry content;
 * - entries and inclusion proofs need an API token with scope `audit:verify`, and show only the
 *   token's application's entries (another application's id answers 404, like an unknown one),
 *   since an entry's payload is the application's data;
 * - verification needs an API token with `audit:verify` of any application of the region: its
 *   answer carries no personal data (indexes and hashes), but it rereads the whole chain, so it is
 *   not offered anonymously.
 */
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly chain: AuditChain) {}

  @Get('verify')
  @RequireScopes('audit:verify')
  @ApiResponseOf(AuditVerificationResponse)
  async verify(@Query() query: VerifyQuery): Promise<Record<string, unknown>> {
    const result = await this.chain.verifyChain.execute(query.from_checkpoint);
    return verificationView(this.chain.region, this.chain.origin, await this.chain.genesisHash(), result);
  }

  @Get('entries')
  @RequireScopes('audit:verify')
  @ApiResponseOf(AuditRecordResponse, { page: true })
  async listEntries(@CurrentPrincipal() principal: Principal, @Query() query: EntriesQuery): Promise<Page<AuditRecordResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['index']).index) : -1;
    if (!Number.isSafeInteger(after) || after < -1)
      throw auditError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.chain.entries.listForApplication(principal.applicationId, limit + 1, after);
    return toPage(rows, limit, entryView, (row) => ({ index: row.index }));
  }

  @Get('entries/:id')
  @RequireScopes('audit:verify')
  @ApiResponseOf(AuditRecordResponse)
  async getEntry(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AuditRecordResponse> {
    return entryView(await ownEntry(this.chain.entries, principal.applicationId, id));
  }

  @Get('entries/:id/inclusion_proof')
  @RequireScopes('audit:verify')
  @ApiResponseOf(AuditInclusionProofResponse)
  async inclusionProof(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: InclusionProofQuery,
  ): Promise<AuditInclusionProofResponse> {
    const entry = await ownEntry(this.chain.entries, principal.applicationId, id);
    const proof = await buildInclusionProof(this.chain.checkpoints, this.chain.leaves, entry, query.checkpoint);
    return {
      object: 'audit_inclusion_proof',
      algorithm: 'RFC 9162 section 2.1.3; leaf = SHA-256(0x00 || 32-byte entry hash)',
      entry: entryView(entry),
      leaf_index: entry.index,
      leaf_hash: proof.leafHash,
      tree_size: proof.checkpoint.treeSize,
      root_hash: checkpointView(proof.checkpoint).root_hash,
      proof: proof.proof,
      checkpoint: checkpointView(proof.checkpoint),
    };
  }

  @Public()
  @Get('checkpoints')
  @ApiResponseOf(AuditCheckpointResponse, { page: true })
  async listCheckpoints(@Query() query: CheckpointsQuery): Promise<Page<AuditCheckpointResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const before = query.cursor ? Number(decodeCursor(query.cursor, ['sequence']).sequence) : undefined;
    if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) {
      throw auditError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    }
    const rows = await this.chain.checkpoints.list(limit + 1, before);
    return toPage(rows, limit, checkpointView, (row) => ({ sequence: row.sequence }));
  }

  /** `:sequence` is a checkpoint number (1, 2, ...) or `latest`. */
  @Public()
  @Get('checkpoints/:sequence')
  @ApiResponseOf(AuditCheckpointResponse)
  async getCheckpoint(@Param('sequence') sequence: string): Promise<AuditCheckpointResponse> {
    let checkpoint;
    if (sequence === 'latest') {
      checkpoint = await this.chain.checkpoints.latest();
    } else {
      if (!/^[1-9][0-9]{0,15}$/.test(sequence) || !Number.isSafeInteger(Number(sequence))) {
        throw auditError('invalid_request', 'sequence must be a positive integer or "latest"', { field: 'sequence' });
      }
      checkpoint = await this.chain.checkpoints.bySequence(Number(sequence));
    }
    if (!checkpoint) throw auditError('checkpoint_not_found', 'Checkpoint not found', { sequence });
    return checkpointView(checkpoint);
  }

  @Public()
  @Get('consistency_proof')
  @ApiResponseOf(AuditConsistencyProofResponse)
  async consistencyProof(@Query() query: ConsistencyProofQuery): Promise<AuditConsistencyProofResponse> {
    const proof = await buildConsistencyProof(this.chain.checkpoints, this.chain.leaves, query.from, query.to);
    return {
      object: 'audit_consistency_proof',
      algorithm: 'RFC 9162 section 2.1.4',
      from: checkpointView(proof.from),
      to: checkpointView(proof.to),
      old_size: proof.from.treeSize,
      new_size: proof.to.treeSize,
      proof: proof.proof,
    };
  }
}
