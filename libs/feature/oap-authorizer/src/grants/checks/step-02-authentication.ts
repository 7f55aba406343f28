/**
 * Step 2, authentication (authorization_denied). Enforced at the API edge: the application's API
 * token (platform AuthGuard) and a DPoP proof whose key thumbprint equals `agent_dpop_jkt`; every
 * 401 of the grant endpoint carries `denial_category` and `cascade_step: 2`.
 */
export const STEP_02_AUTHENTICATION = { step: 2, name: 'authentication', category: 'authorization_denied' } as const;
