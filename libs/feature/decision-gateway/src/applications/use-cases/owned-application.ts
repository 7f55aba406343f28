import type { Principal } from '@svc/auth';
import { gatewayError } from '../../gateway.errors';
import type { Application } from '../application';
import type { ApplicationsRepository } from '../applications.repository';

/**
 * Loads an application the caller may act on. Another application's id answers exactly like an
 * unknown one (404), so ids cannot be probed.
 */
export async function ownedApplication(repo: ApplicationsRepository, principal: Principal, applicationId: string): Promise<Application> {
  const app = principal.applicationId === applicationId ? await repo.findApplication(applicationId) : undefined;
  if (!app) throw gatewayError('application_not_found', 'Application not found', { application_id: applicationId });
  return app;
}
