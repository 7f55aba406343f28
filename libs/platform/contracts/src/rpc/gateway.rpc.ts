import { GetApplicationReplySchema, GetApplicationRequestSchema } from '../gen/svc/rpc/v1/applications_pb';
import { ResolveCredentialReplySchema, ResolveCredentialRequestSchema } from '../gen/svc/rpc/v1/credentials_pb';

/** Request/reply methods served by decision-gateway. */
export const GATEWAY_RPC = {
  'gateway.resolve_credential': { request: ResolveCredentialRequestSchema, reply: ResolveCredentialReplySchema },
  'gateway.get_application': { request: GetApplicationRequestSchema, reply: GetApplicationReplySchema },
} as const;
