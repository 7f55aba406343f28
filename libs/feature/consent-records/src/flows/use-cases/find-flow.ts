import { isIdOf } from '@svc/ids';
import { consentRecordsError } from '../../consent-records.errors';
import type { FlowVersion } from '../flow';
import type { FlowsRepository } from '../flows.repository';

/**
 * Loads a version of one of the caller's flows. A malformed id, an unknown id and another
 * application's id all answer 404 flow_not_found, so ids cannot be probed.
 */
export async function findOwnedFlow(
  flows: FlowsRepository,
  applicationId: string,
  flowId: string,
  options: Parameters<FlowsRepository['find']>[3] = {},
): Promise<FlowVersion> {
  const flow = isIdOf('flow', flowId) ? await flows.find(applicationId, flowId, undefined, options) : undefined;
  if (!flow) throw consentRecordsError('flow_not_found', 'Flow not found', { flow_id: flowId });
  return flow;
}
