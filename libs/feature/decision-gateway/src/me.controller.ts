import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiResponseOf } from '@svc/server';
import { applicationView } from './applications/application.response';
import { ApplicationsRepository } from './applications/applications.repository';
import { ownedApplication } from './applications/use-cases/owned-application';
import { IdentityResponse } from './me.response';
import { PERSON_DIRECTORY, type PersonDirectory } from './people/person-sessions.port';

/**
 * GET /api/v1/me: who the presented credential is, and in whose context it acts. For a person's
 * OAuth access token: the person (from the people directory), their home country, and the
 * application of the client the token was issued to, and the applications linked to the person. With X-Delegation-Grant-Id: `person` is the
 * principal (whose context the request runs in) and `delegate` the person who authenticated.
 */
@Controller('api/v1/me')
export class MeController {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Optional() @Inject(PERSON_DIRECTORY) private readonly directory: PersonDirectory | null,
  ) {}

  @Get()
  @Auth('api_token', 'access_token')
  @ApiResponseOf(IdentityResponse)
  async me(@CurrentPrincipal() principal: Principal): Promise<Record<string, unknown>> {
    const app = await ownedApplication(this.applications, principal, principal.applicationId);
    const person = principal.personId && this.directory ? await this.directory.findById(principal.personId) : null;
    return {
      object: 'identity',
      credential: { type: principal.kind, id: principal.credentialId, scopes: principal.scopes },
      application: applicationView(app),
      region: principal.region,
      ...(principal.personId
        ? {
            person: {
              id: principal.personId,
              display_name: person?.displayName ?? null,
              email: person && principal.scopes.includes('email') ? person.email : null,
              locale: person?.locale ?? null,
              time_zone: person?.timeZone ?? null,
              home_country: person?.homeCountry ?? null,
            },
            home_country: person?.homeCountry ?? null,
            linked_applications: await this.linkedApplications(principal.personId),
          }
        : {}),
      ...(principal.delegation
        ? {
            acting_for: {
              principal_id: principal.delegation.principalId,
              delegate_id: principal.delegation.delegateId,
              delegation_grant_id: principal.delegation.grantId,
              delegation_type: principal.delegation.type,
            },
            delegate: await this.delegateView(principal.delegation.delegateId),
          }
        : {}),
    } satisfies IdentityResponse;
  }

  private async linkedApplications(personId: string): Promise<IdentityResponse['linked_applications']> {
    const linked = this.directory ? await this.directory.linkedApplications(personId) : [];
    return linked.map((a) => ({ application_id: a.applicationId, name: a.name, linked_at: a.linkedAt.toISOString() }));
  }

  private async delegateView(delegateId: string): Promise<{ id: string; display_name: string | null }> {
    const delegate = this.directory ? await this.directory.findById(delegateId) : null;
    return { id: delegateId, display_name: delegate?.displayName ?? null };
  }
}
