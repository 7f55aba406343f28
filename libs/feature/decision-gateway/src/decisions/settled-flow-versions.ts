import { Injectable } from '@nestjs/common';
import { RpcClient, type RpcReply } from '@svc/bus';

/** Versions kept at most; beyond it the memory starts over. */
const SETTLED_VERSIONS_KEPT = 10_000;

/**
 * One flow version's terms as consent-records answers them (`consent_records.get_flow` for an
 * explicit version), asked once per version past its draft: activation fixes a version's terms
 * (purposes, requirements, wording) for good and flows are never deleted, so such an answer stays
 * true. A draft, or a version not found, is asked every time. Its status and the flow's active
 * version may have moved on since: ask `get_flow` itself for those. One per process, shared by the
 * decision page's sign-in check and the sessions' fixed purposes.
 */
@Injectable()
export class SettledFlowVersions {
  private readonly kept = new Map<string, RpcReply<'consent_records.get_flow'>>();

  constructor(private readonly rpc: RpcClient) {}

  async terms(applicationId: string, flowId: string, version: number): Promise<RpcReply<'consent_records.get_flow'>> {
    const key = `${applicationId}/${flowId}/${version}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const reply = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version });
    if (reply.found && version > 0 && reply.version === version && reply.status !== 'draft') {
      if (this.kept.size >= SETTLED_VERSIONS_KEPT) this.kept.clear();
      this.kept.set(key, reply);
    }
    return reply;
  }
}
