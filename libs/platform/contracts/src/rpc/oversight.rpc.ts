import {
  AgentClassRouteReplySchema,
  AgentClassRouteRequestSchema,
  AuthenticateAttesterReplySchema,
  AuthenticateAttesterRequestSchema,
  EvaluateGrantReplySchema,
  EvaluateGrantRequestSchema,
} from '../gen/svc/rpc/v1/oversight_pb';

/** Request/reply methods served by oversight-witness. */
export const OVERSIGHT_RPC = {
  'oversight.agent_class_route': { request: AgentClassRouteRequestSchema, reply: AgentClassRouteReplySchema },
  'oversight.authenticate_attester': { request: AuthenticateAttesterRequestSchema, reply: AuthenticateAttesterReplySchema },
  'oversight.evaluate_grant': { request: EvaluateGrantRequestSchema, reply: EvaluateGrantReplySchema },
} as const;
