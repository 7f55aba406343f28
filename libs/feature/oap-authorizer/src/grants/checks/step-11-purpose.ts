import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 11, purpose-of-use compatible: a declared purpose (`purpose`, else
 * `agent_metadata.delegation_purpose`) must be one of the authority's purposes, and a declared
 * jurisdiction one of `jurisdiction_bounds.allowed`.
 */
export const step11Purpose = cascadeStep({
  step: 11,
  name: 'purpose_compatible',
  category: 'intent_denied',
  reasons: ['purpose_not_declared', 'purpose_incompatible', 'jurisdiction_bounds_not_configured', 'jurisdiction_not_allowed'],
  bounds: ['jurisdiction_bounds'],
  check(context) {
    const authority = authorityOf(context);
    const purpose = context.request.purpose ?? context.request.metadata?.delegation_purpose;
    if (purpose !== undefined) {
      if (authority.purposes.length === 0) return deny('purpose_not_declared', 'The authority declares no purpose of use');
      if (!authority.purposes.includes(purpose)) return deny('purpose_incompatible', 'The purpose is not one the authority allows');
    }
    const jurisdiction = context.request.jurisdiction;
    if (jurisdiction !== undefined) {
      const bounds = authority.bounds.jurisdiction_bounds;
      if (!bounds) return deny('jurisdiction_bounds_not_configured', 'The authority configures no jurisdiction bounds');
      if (!bounds.unrestricted && !(bounds.allowed ?? []).includes(jurisdiction))
        return deny('jurisdiction_not_allowed', `Jurisdiction ${jurisdiction} is not allowed`);
    }
    return pass;
  },
});
