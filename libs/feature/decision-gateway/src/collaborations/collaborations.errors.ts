import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of collaborations. */
export const collaborationError = defineErrors({
  /** No such collaboration visible to the caller (another party's answers like an unknown one). */
  collaboration_not_found: 'not_found',
  /** The caller's role does not allow this (`detail.role`): only the owner invites and revokes; a viewer does not attach. */
  collaboration_role_forbidden: 'forbidden',
  /** No such invitation or member in this collaboration. */
  collaboration_member_not_found: 'not_found',
  /** The party is already invited or a member (`detail.status`). */
  collaboration_member_exists: 'conflict',
  /** The invitation or membership does not allow this move any more (`detail.status`). */
  collaboration_member_status: 'conflict',
  /** Only the invited party answers its invitation: an application with its API token, a person with their own access token. */
  collaboration_invitation_not_yours: 'forbidden',
  /** Exactly one of `application_id` and `person_id` names the invitee (`detail.field`). */
  collaboration_invitee_invalid: 'unprocessable',
  /** The invited application or person is not known in this region (`detail.field`). */
  collaboration_invitee_not_found: 'unprocessable',
  /** The agreement is already attached to this collaboration. */
  collaboration_agreement_attached: 'conflict',
  /** The agreement is not one of the caller application's agreements (`detail.field: agreement_id`). */
  collaboration_agreement_not_found: 'unprocessable',
});
