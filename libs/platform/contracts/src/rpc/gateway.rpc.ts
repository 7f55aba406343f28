import {
  AuthorizeAccountRequestSchema,
  ResolveAccessTokenRequestSchema,
  ResolveAccountCredentialRequestSchema,
  ResolvedAccessReplySchema,
} from '../gen/svc/rpc/v1/access_pb';
import {
  CheckFlowActivationReplySchema,
  CheckFlowActivationRequestSchema,
  GetApplicationReplySchema,
  GetApplicationRequestSchema,
} from '../gen/svc/rpc/v1/applications_pb';
import { ResolveCredentialReplySchema, ResolveCredentialRequestSchema } from '../gen/svc/rpc/v1/credentials_pb';
import {
  CheckPersonHomedReplySchema,
  CheckPersonHomedRequestSchema,
  FindPersonHomeReplySchema,
  FindPersonHomeRequestSchema,
  OpenAgreementSigningReplySchema,
  OpenAgreementSigningRequestSchema,
  RecordAgreementSignatureReplySchema,
  ReadPersonForSupportReplySchema,
  ReadPersonForSupportRequestSchema,
  RecordAgreementSignatureRequestSchema,
} from '../gen/svc/rpc/v1/people_pb';

/** Request/reply methods served by decision-gateway. */
export const GATEWAY_RPC = {
  'gateway.resolve_credential': { request: ResolveCredentialRequestSchema, reply: ResolveCredentialReplySchema },
  /**
   * Asked across regions, of the region a counterparty token's id names: resolve that token (only
   * the `counterparty_token_sha256_hex` case; API tokens and publishable keys stay in-region).
   */
  'gateway.resolve_counterparty_token': { request: ResolveCredentialRequestSchema, reply: ResolveCredentialReplySchema },
  /** Asked within the region by a process without an OpenID provider: the credential a person's access token stands for. */
  'gateway.resolve_access_token': { request: ResolveAccessTokenRequestSchema, reply: ResolvedAccessReplySchema },
  /** Asked within the region by a process without the accounts owner: an account token by its digest. */
  'gateway.resolve_account_credential': { request: ResolveAccountCredentialRequestSchema, reply: ResolvedAccessReplySchema },
  /** Asked within the region: may this account actor act on the application (the owner's 404/403 otherwise)? */
  'gateway.authorize_account': { request: AuthorizeAccountRequestSchema, reply: ResolvedAccessReplySchema },
  'gateway.get_application': { request: GetApplicationRequestSchema, reply: GetApplicationReplySchema },
  /** Asked across regions: is a person with this email digest homed here? (only `found`). */
  'gateway.find_person_home': { request: FindPersonHomeRequestSchema, reply: FindPersonHomeReplySchema },
  /** Asked across regions by the principal's region of a delegate's home region: is this person (`usr_…`) homed here? (only `found`). */
  'gateway.check_person_homed': { request: CheckPersonHomedRequestSchema, reply: CheckPersonHomedReplySchema },
  /** Asked by a support operator's region of the person's home region, after the crossing is in its transfer register: the person's profile. */
  'gateway.read_person_for_support': { request: ReadPersonForSupportRequestSchema, reply: ReadPersonForSupportReplySchema },
  /** Asked by an agreement's home region of a signer's home region: open the signer's signing session there. */
  'gateway.open_agreement_signing': { request: OpenAgreementSigningRequestSchema, reply: OpenAgreementSigningReplySchema },
  /** Asked by a signer's home region of the agreement's home region: record this signing outcome (refused once decided). */
  'gateway.record_agreement_signature': { request: RecordAgreementSignatureRequestSchema, reply: RecordAgreementSignatureReplySchema },
  /** Asked by consent-records before a flow version becomes active: governance and module rules. */
  'gateway.check_flow_activation': { request: CheckFlowActivationRequestSchema, reply: CheckFlowActivationReplySchema },
} as const;
