import { Controller, Get } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiResponseOf } from '@svc/server';
import { applicationView } from './applications/application.response';
import { ApplicationsRepository } from './applications/applications.repository';
import { ownedApplication } from './applications/use-cases/owned-application';
import { IdentityResponse } from './me.response';

/** GET /api/v1/me: who the presented credential is, and in whose context it acts. */
@Controller('api/v1/me')
export class MeController {
  constructor(private readonly applications: ApplicationsRepository) {}

  @Get()
  @Auth('api_token')
  @ApiResponseOf(IdentityResponse)
  async me(@CurrentPrincipal() principal: Principal): Promise<Record<string, unknown>> {
    const app = await ownedApplication(this.applications, principal, principal.applicationId);
    return {
      object: 'identity',
      credential: { type: principal.kind, id: principal.credentialId, scopes: principal.scopes },
      application: applicationView(app),
      region: principal.region,
      ...(principal.delegation
        ? { acting_for: { principal_id: principal.delegation.principalId, delegation_grant_id: principal.delegation.grantId } }
        : {}),
    } satisfies IdentityResponse;
  }
}
