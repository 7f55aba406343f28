import {
  AllowedOriginAddedSchema,
  ApiTokenChangedSchema,
  ApplicationCreatedSchema,
  ApplicationSandboxResetSchema,
  ApplicationUpdatedSchema,
} from '../gen/svc/events/v1/connect_pb';
import type { EventEntry } from './event-entry';

/** Events of the Connect surface (decision-gateway). */
export const CONNECT_EVENTS = {
  'application.created': {
    schema: ApplicationCreatedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: false,
    meaning: 'An application was created',
  },
  'application.updated': {
    schema: ApplicationUpdatedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: false,
    meaning: 'An application’s settings changed',
  },
  'application.allowed_origin_added': {
    schema: AllowedOriginAddedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: false,
    meaning: 'An application allowed a browser origin',
  },
  'application.api_token_changed': {
    schema: ApiTokenChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: false,
    meaning: 'An API token or publishable key was issued or revoked (credential caches evict it)',
  },
  'application.sandbox_reset': {
    schema: ApplicationSandboxResetSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: false,
    meaning: 'A sandbox application’s data was reset',
  },
} as const satisfies Record<string, EventEntry>;
