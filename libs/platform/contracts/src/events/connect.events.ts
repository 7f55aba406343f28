import { AllowedOriginAddedSchema, ApiTokenChangedSchema, ApplicationCreatedSchema, ApplicationSandboxResetSchema, ApplicationUpdatedSchema } from '../gen/svc/events/v1/connect_pb';

/** Events of the Connect surface (decision-gateway). */
export const CONNECT_EVENTS = {
  'application.created': { schema: ApplicationCreatedSchema, version: 1 },
  'application.updated': { schema: ApplicationUpdatedSchema, version: 1 },
  'application.allowed_origin_added': { schema: AllowedOriginAddedSchema, version: 1 },
  'application.api_token_changed': { schema: ApiTokenChangedSchema, version: 1 },
  'application.sandbox_reset': { schema: ApplicationSandboxResetSchema, version: 1 },
} as const;
