import { defineErrors } from '@svc/errors';

/** Closed list of consent-records reason codes (flows, records, imports, captures, status). */
export const consentRecordsError = defineErrors({
  /** Unknown flow, malformed flow id and another application's flow answer alike. */
  flow_not_found: 'not_found',
  flow_version_not_found: 'not_found',
  /** Two purposes (or two data fields) share a key. */
  flow_duplicate_key: 'unprocessable',
  /** An ISO 8601 duration field (consent_duration, retention_period) is malformed or zero. */
  flow_duration_invalid: 'unprocessable',
  /** The flow has never been activated, so no version governs records. */
  flow_not_active: 'conflict',
  /** Spec, Flow: capturable in own forms only with a decision-only flow that declares a consent duration. */
  flow_not_capturable: 'unprocessable',
  // Refusals by name (spec, Other rules: capture refusals); detail.purpose names the purpose key.
  /** A decision keyed by a purpose the flow's active version does not declare. */
  purpose_not_in_flow: 'unprocessable',
  /** A consent-mechanism purpose of the flow has no decision. */
  consent_purpose_missing: 'unprocessable',
  /** A consent purpose was pre-ticked (default_checked true): not a freely given consent. */
  consent_purpose_default_checked: 'unprocessable',
  /** A consent purpose was a condition of the form (mandatory true): not a freely given consent. */
  consent_purpose_mandatory: 'unprocessable',
  /** A form control marked required is mapped to a consent purpose (capture). */
  required_field_mapped_to_consent: 'unprocessable',
  /** A purpose is mapped to a control that cannot carry a yes/no decision (capture). */
  field_cannot_carry_decision: 'unprocessable',
  /** Neither subject.email nor subject.external_id was given. */
  subject_reference_missing: 'unprocessable',
  /** captured_at lies more than 5 minutes after the platform time. */
  captured_at_in_future: 'unprocessable',
  /** The idempotency key was used before with a different body. */
  idempotency_key_reused: 'unprocessable',
  /** Unknown record, malformed id and another application's record answer alike. */
  record_not_found: 'not_found',
  /** A newer record speaks for this person and flow; withdraw from that one. */
  record_superseded: 'conflict',
  consent_already_withdrawn: 'conflict',
  purpose_already_withdrawn: 'conflict',
  /** The purpose was declined in this record, so there is nothing to withdraw. */
  purpose_not_granted: 'conflict',
  /** The purpose is not part of this record. */
  purpose_not_in_record: 'unprocessable',
  /** The application in the path is not the caller's (answers like an unknown one). */
  application_not_found: 'not_found',
  /** The deployment has no directory key, so this region neither publishes nor answers the cross-border directory (no such resource: 404). */
  directory_unavailable: 'not_found',
  import_not_found: 'not_found',
  /** Unknown capture token, or one of another application. */
  capture_not_found: 'not_found',
  /** The capture was not committed within 24 hours; it left no record. */
  capture_expired: 'gone',
  /** The capture was committed already (the record id is in detail). */
  capture_already_committed: 'conflict',
  /** The request's Origin is not one of the application's allowed origins. */
  origin_not_allowed: 'forbidden',
  // Hosted form platform intake (form integrations).
  /** Unknown, deleted or another application's form integration. */
  form_integration_not_found: 'not_found',
  /** A platform delivery without its signature header. */
  form_signature_missing: 'unauthenticated',
  /** A platform delivery whose signature does not match the integration's signing secret. */
  form_signature_invalid: 'unauthenticated',
  /** A signed delivery that is not a form response of the platform's shape. */
  form_payload_invalid: 'invalid',
  /** A delivery of another event than a submitted form response (e.g. a partial response). */
  form_event_not_supported: 'unprocessable',
  /** A delivery of another form than the one the integration is bound to. */
  form_mismatch: 'unprocessable',
  /** Channel embedded_field_browser without the rendering_digest of the field shown (capture). */
  rendering_evidence_missing: 'unprocessable',
  /** The rendering_digest is not the service's rendering of the flow's active version (capture). */
  rendering_evidence_mismatch: 'unprocessable',
  /** A rendering_digest on a channel the service did not render (the snippet's own controls). */
  rendering_evidence_not_applicable: 'unprocessable',
  // Mailing-audience integrations.
  /** Unknown integration, malformed id and another application's integration answer alike. */
  mailing_audience_not_found: 'not_found',
  /** api_base_url is not https (development applications: http on a loopback host), or carries credentials, query or fragment. */
  mailing_api_base_url_invalid: 'unprocessable',
  /** api_base_url's host is, or resolves to, an address the application may not reach (private, loopback outside development, metadata, ...; detail.range names it). */
  mailing_api_base_url_address_refused: 'unprocessable',
  /** A purpose is mapped twice in permissions or in tags. */
  mailing_mapping_duplicate: 'unprocessable',
  /** This flow is already connected to this audience (list). */
  mailing_audience_exists: 'conflict',
  mailing_audience_limit_reached: 'conflict',
  /** Unknown inbound webhook path secret. */
  mailing_webhook_not_found: 'not_found',
  /** An inbound webhook body without the fields its type needs. */
  mailing_webhook_malformed: 'invalid',
  // Data policies (Protect).
  /** Unknown policy, malformed id and another application's policy answer alike. */
  policy_not_found: 'not_found',
  policy_version_not_found: 'not_found',
  /** A flow id of flow_ids is not one of the application's flows (detail.flow_id). */
  policy_flow_not_found: 'unprocessable',
  /** Two rules name the same purpose and data category (detail.purpose, detail.data_category). */
  policy_rule_duplicate: 'unprocessable',
  // Data licences and offers (Protect).
  /** Unknown licence, malformed id and another application's licence answer alike. */
  data_license_not_found: 'not_found',
  /** Unknown offer, malformed id and another application's offer answer alike. */
  data_offer_not_found: 'not_found',
  /** A licence purpose is not a consent purpose of the flow's active version (detail.purpose). */
  license_purpose_not_in_flow: 'unprocessable',
  /** Proposed terms leave the licence: a purpose, data category or recipient it does not allow (detail.field, detail.value). */
  terms_outside_license: 'unprocessable',
  /** The move is not a trigger of the offer's current state for this side (detail.state, detail.move, detail.actor). */
  deal_move_not_allowed: 'conflict',
  /** The offer's expires_at has passed: it can no longer be accepted, revised or countered. */
  offer_expired: 'gone',
  // Secure transfers (Protect).
  data_transfer_not_found: 'not_found',
  /** The offer was not made under this licence (detail.field). */
  transfer_offer_not_under_license: 'unprocessable',
  /** The accepted deal does not cover the transfer now (detail.reason: deal_not_accepted, deal_term_ended, consent_withdrawn, consent_expired, purpose_not_agreed, data_category_not_agreed, recipient_not_agreed). */
  transfer_not_covered: 'unprocessable',
  /** The licence names no public key for the recipient, so nothing can be encrypted to it (detail.recipient). */
  recipient_key_missing: 'unprocessable',
  /** The recipient receives the data in another country and the request names no lawful basis (detail.field). */
  lawful_basis_required: 'unprocessable',
  // Clean rooms.
  clean_room_not_found: 'not_found',
  /** The partner is not another application of this region. */
  clean_room_partner_invalid: 'unprocessable',
  /** The purpose is not a consent purpose of an active flow of the application. */
  clean_room_purpose_invalid: 'unprocessable',
  /** Only the partner accepts or declines; only an active room compares. */
  clean_room_state_invalid: 'conflict',
  clean_room_forbidden: 'forbidden',
});
