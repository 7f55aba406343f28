/**
 * Signature algorithms accepted on what agents and their issuers send (DPoP proofs, agent
 * credentials, key-binding JWTs, attestations): asymmetric only. `Ed25519` is the fully-specified
 * name RFC 9864 gives EdDSA over Ed25519; current clients (panva's `dpop`, jose 6) sign with it,
 * so it is accepted wherever the polymorphic `EdDSA` is.
 */
export const INCOMING_JWS_ALGORITHMS = ['Ed25519', 'EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'];

/** `WWW-Authenticate` challenge of a refused agent call (RFC 9449 §7.1): the DPoP algorithms offered. */
export const DPOP_CHALLENGE = 'DPoP algs="Ed25519 EdDSA ES256 ES384 PS256 RS256"';
