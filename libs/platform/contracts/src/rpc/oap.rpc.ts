import { PersonDataReplySchema, PersonDataRequestSchema } from '../gen/svc/rpc/v1/person_data_pb';
import { PersonAuthoritiesReplySchema, PersonAuthoritiesRequestSchema } from '../gen/svc/rpc/v1/connections_pb';
import {
  ConsumeGrantReplySchema,
  ConsumeGrantRequestSchema,
  GetApprovalRequestReplySchema,
  GetApprovalRequestRequestSchema,
  GetAuthorityProposalReplySchema,
  GetAuthorityProposalRequestSchema,
  GrantStatusReplySchema,
  GrantStatusRequestSchema,
  MintAgentTokenReplySchema,
  MintAgentTokenRequestSchema,
  SettleAuthorityProposalReplySchema,
  SettleAuthorityProposalRequestSchema,
} from '../gen/svc/rpc/v1/oap_pb';

/** Request/reply methods served by oap-authorizer (called across regions by svc-verify). */
export const OAP_RPC = {
  /** A data subject request: the person's data at one application (export), or erase it, or stop named purposes. */
  'oap.person_data': { request: PersonDataRequestSchema, reply: PersonDataReplySchema },
  'oap.grant_status': { request: GrantStatusRequestSchema, reply: GrantStatusReplySchema },
  'oap.consume_grant': { request: ConsumeGrantRequestSchema, reply: ConsumeGrantReplySchema },
  'oap.get_approval_request': { request: GetApprovalRequestRequestSchema, reply: GetApprovalRequestReplySchema },
  'oap.mint_agent_token': { request: MintAgentTokenRequestSchema, reply: MintAgentTokenReplySchema },
  'oap.get_authority_proposal': { request: GetAuthorityProposalRequestSchema, reply: GetAuthorityProposalReplySchema },
  'oap.settle_authority_proposal': { request: SettleAuthorityProposalRequestSchema, reply: SettleAuthorityProposalReplySchema },
  /** decision-gateway's connections: the authorities a person granted (active or suspended). */
  'oap.person_authorities': { request: PersonAuthoritiesRequestSchema, reply: PersonAuthoritiesReplySchema },
  /** decision-gateway's connections: revoke them (of one application, or all), each emitting `authority.revoked`. */
  'oap.revoke_person_authorities': { request: PersonAuthoritiesRequestSchema, reply: PersonAuthoritiesReplySchema },
} as const;
