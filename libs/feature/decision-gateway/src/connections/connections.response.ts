import { Type } from 'class-transformer';
import { IsIn, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import type { Connection, Disconnection } from './use-cases/person-connections.use-case';

export class ConnectionConsentResponse {
  /** `crec_…`: a consent record in force for a subject reference the application linked to the person. */
  @IsString() record_id!: string;
  @IsString() flow_id!: string;
}

export class ConnectionAuthorityResponse {
  /** `auth_…`: an authority the person granted an agent of the application. */
  @IsString() authority_id!: string;
  @IsString() agent_id!: string;
  @IsIn(['active', 'suspended']) status!: string;
}

export class ConnectionDelegationResponse {
  /** `dlg_…` under the application, offered or active. */
  @IsString() delegation_grant_id!: string;
  /** The person's side: `principal` (they let someone act for them) or `delegate`. */
  @IsIn(['principal', 'delegate']) role!: string;
  @IsString() type!: string;
  @IsIn(['offered', 'active']) status!: string;
}

export class ConnectionOAuthGrantResponse {
  /** The OpenID provider's grant id: what the person allowed the client. */
  @IsString() grant_id!: string;
  /** `oac_…`, a client of the application. */
  @IsString() client_id!: string;
}

/** One application connected to the signed-in person, and everything that connects it. */
export class ConnectionResponse {
  @IsIn(['connection']) object!: 'connection';
  @IsString() application_id!: string;
  @IsString() application_name!: string;
  @ValidateNested({ each: true }) @Type(() => ConnectionConsentResponse) consents!: ConnectionConsentResponse[];
  @ValidateNested({ each: true }) @Type(() => ConnectionAuthorityResponse) authorities!: ConnectionAuthorityResponse[];
  @ValidateNested({ each: true }) @Type(() => ConnectionDelegationResponse) delegations!: ConnectionDelegationResponse[];
  @ValidateNested({ each: true }) @Type(() => ConnectionOAuthGrantResponse) oauth_grants!: ConnectionOAuthGrantResponse[];
}

/** 200 of DELETE /api/v1/connections(/:application_id): what was ended. */
export class DisconnectionResponse {
  @IsIn(['disconnection']) object!: 'disconnection';
  /** The application disconnected, or null when every application was. */
  @IsString() @Nullable() application_id!: string | null;
  @IsString({ each: true }) withdrawn_consents!: string[];
  @IsString({ each: true }) revoked_authorities!: string[];
  @IsString({ each: true }) revoked_delegations!: string[];
  @IsString({ each: true }) revoked_oauth_grants!: string[];
}

export function connectionView(c: Connection): ConnectionResponse {
  return {
    object: 'connection',
    application_id: c.applicationId,
    application_name: c.applicationName,
    consents: c.consents.map((x) => ({ record_id: x.recordId, flow_id: x.flowId })),
    authorities: c.authorities.map((x) => ({ authority_id: x.authorityId, agent_id: x.agentId, status: x.status })),
    delegations: c.delegations.map((x) => ({ delegation_grant_id: x.id, role: x.role, type: x.type, status: x.status })),
    oauth_grants: c.oauthGrants.map((x) => ({ grant_id: x.grantId, client_id: x.clientId })),
  };
}

export function disconnectionView(applicationId: string | null, d: Disconnection): DisconnectionResponse {
  return {
    object: 'disconnection',
    application_id: applicationId,
    withdrawn_consents: d.withdrawnConsents,
    revoked_authorities: d.revokedAuthorities,
    revoked_delegations: d.revokedDelegations,
    revoked_oauth_grants: d.revokedOAuthGrants,
  };
}
