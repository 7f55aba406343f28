import { isIdOf } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import { capturableInOwnForm, type FlowVersion } from '../flows/flow';
import type { FlowsRepository } from '../flows/flows.repository';

/**
 * The version of the caller's flow that governs new records: the active one (a newer draft does
 * not). 404 flow_not_found for unknown/foreign/malformed ids, 409 flow_not_active while draft,
 * 422 flow_not_capturable when the flow needs more than a decision or declares no consent duration.
 */
export async function activeCapturableFlow(
  flows: FlowsRepository,
  applicationId: string,
  flowId: string,
  manager?: EntityManager,
): Promise<FlowVersion> {
  const latest = isIdOf('flow', flowId) ? await flows.find(applicationId, flowId, undefined, { manager }) : undefined;
  if (!latest) throw consentRecordsError('flow_not_found', 'Flow not found', { flow_id: flowId });
  if (latest.activeVersion === null)
    throw consentRecordsError('flow_not_active', 'The flow is a draft; activate it before recording consent against it', {
      flow_id: flowId,
    });
  const active =
    latest.version === latest.activeVersion ? latest : await flows.find(applicationId, flowId, latest.activeVersion, { manager });
  if (!active)
    throw consentRecordsError('flow_version_not_found', 'Flow version not found', { flow_id: flowId, version: latest.activeVersion });
  if (!capturableInOwnForm(active.terms)) {
    throw consentRecordsError(
      'flow_not_capturable',
      'This flow needs more than a decision or declares no consent_duration, so it cannot be captured outside the hosted flow',
      { flow_id: flowId },
    );
  }
  return active;
}
