export { DecisionGatewayModule } from './decision-gateway.module';
export { GATEWAY_SCHEMA } from './schema';
export { gatewayMigrations } from './migrations';
export { gatewayError } from './gateway.errors';
export { APPLICATION_MODES, ENVIRONMENTS, type Application, type ApplicationMode, type Environment } from './applications/application';
export { applicationView } from './applications/application.response';
export { ApplicationsRepository } from './applications/applications.repository';
export { CreateApplication, CreateApplicationCommand, type CreatedApplication } from './applications/use-cases/create-application.use-case';
export { canonicalOrigin } from './applications/origin';
export { AccountsRepository } from './accounts/accounts.repository';
export { ManageAccountTokens } from './accounts/use-cases/manage-account-tokens.use-case';
export { accountsError } from './accounts/accounts.errors';
export { GATEWAY_OUTBOX } from './tokens';
export { decisionGatewayFeature } from './decision-gateway.feature';
export { DecisionsModule } from './decisions/decisions.module';
export {
  CONSENT_STATUSES,
  DECISION_KINDS,
  DELIVERY_MODES,
  QUORUM_TYPES,
  TRIGGER_TYPES,
  type DecisionKind,
  type DecisionSession,
  type SessionStatus,
} from './decisions/decision';
export { decisionError } from './decisions/decisions.errors';
export { CreateDecisionSession } from './decisions/use-cases/create-decision-session.use-case';
export { ExpireDueSessions } from './decisions/use-cases/expire-due-sessions.use-case';
export { EscalationApprovals, APPROVAL_REQUESTED_EVENTS } from './decisions/escalation-approvals.consumer';
export { ApprovalUrls, APPROVAL_URL_SIGNER } from './notifications/approval-urls';
export { EscalationNotices } from './notifications/escalation-notices.consumer';
export { ReceiptEmails } from './notifications/receipt-emails.consumer';
export { CONSENT_SESSIONS_DEPRECATED_AT, CONSENT_SESSIONS_SUNSET } from './decisions/deprecated-alias.interceptor';
export { PeopleModule } from './people/people.module';
export { SignInFailureReports } from './people/sign-in-failure-reports';
export {
  PERSON_DIRECTORY,
  PERSON_SESSIONS,
  type PersonDirectory,
  type PersonSessions,
  type SignedInPerson,
} from './people/person-sessions.port';
export { DecisionGatewayConfig } from './decision-gateway.config';
export { POSTMESSAGE_SCHEMAS, payloadSchemaName, type PostMessageKind, type PostMessageType } from './hosted/postmessage-schemas';
export { RegisterOAuthClient, type RegisterOAuthClientCommand } from './oauth/register-oauth-client.use-case';
export { OAuthClientsRepository, type OAuthClient } from './oauth/oauth-clients.repository';
export { OidcProviderHost } from './oauth/oidc-provider.host';
export { DelegationsModule } from './delegations/delegations.module';
export { DelegationGrants, DelegationGrantsService, type ActiveDelegation } from './delegations/delegation-grants.service';
export { DelegationsRepository } from './delegations/delegations.repository';
export { DELEGATION_TYPES, type DelegationType } from './delegations/delegation-grant';
