/** Postgres schema owned by oap-authorizer. */
export const OAP_SCHEMA = 'oap';

/** OAP wire version this build speaks (spec, Versioning 4). */
export const OAP_VERSION = '1.0';

/** Conformance level advertised for Conductor mode (spec, Versioning 4). */
export const OAP_CONFORMANCE = 'conductor_full';
