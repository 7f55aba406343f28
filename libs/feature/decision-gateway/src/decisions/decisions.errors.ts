import { defineErrors } from '@svc/errors';

/** Closed list of Decisions API reason codes (spec, Other coded errors: "a closed list"). */
export const decisionError = defineErrors({
  /** Unknown, malformed or another application's session token. */
  session_not_found: 'not_found',
  /** The session passed its deadline before the action. */
  session_expired: 'gone',
  /** The transition table has no move for this action from the current status (or path). */
  transition_not_allowed: 'conflict',
  flow_required: 'unprocessable',
  flow_not_found: 'not_found',
  /** The flow is a draft: it refuses session creation until activated. */
  flow_not_active: 'conflict',
  /** A publishable key can only create consent sessions (spec, Authentication rule 2). */
  kind_not_allowed_for_publishable_key: 'forbidden',
  /** embed_origin missing (publishable key) or absent from the application's allowed origins. */
  embed_origin_not_allowed: 'forbidden',
  embed_origin_invalid: 'unprocessable',
  /** A publishable-key mint whose Origin header is absent or not an allowed origin (spec, Authentication rule 3). */
  origin_not_allowed: 'forbidden',
  /** A publishable-key mint naming the person: only the server binds the person (spec, Authentication rule 2). */
  principal_not_allowed_for_publishable_key: 'unprocessable',
  /** The principal assertion is unknown, another application's, expired, already used, or for another flow. */
  principal_assertion_invalid: 'forbidden',
  /** principal_id and principal_assertion name the person twice. */
  principal_conflict: 'unprocessable',
  /** The decision page tried to set the person; only the server binds it. */
  principal_not_settable: 'unprocessable',
  /** A field that does not apply to the session's kind or action. */
  field_not_applicable: 'unprocessable',
  quorum_invalid: 'unprocessable',
  counter_proposal_required: 'unprocessable',
  /** The acting approver or signer is not one of the session's participants. */
  participant_not_allowed: 'forbidden',
  participant_required: 'unprocessable',
  already_voted: 'conflict',
  exchange_token_invalid: 'forbidden',
  exchange_not_ready: 'conflict',
  exchange_token_used: 'conflict',
  consent_token_not_found: 'not_found',
  /** complete named a purpose the session's flow version does not show. */
  purpose_not_in_flow: 'unprocessable',
  /** complete left out a purpose the flow requires on a lawful basis other than consent. */
  required_purpose_missing: 'unprocessable',
  /** complete granted nothing: refusing every purpose is a decline. */
  no_purpose_granted: 'unprocessable',
});
