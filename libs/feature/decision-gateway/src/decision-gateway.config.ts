import { OAuthConfig } from './oauth/oauth.config';

/**
 * decision-gateway's variables (validated at boot with every feature's, failing by name): the platform's
 * and the OpenID provider's (`OAUTH_*`, see oauth/README.md); a variable of its own is declared here, never read from the environment elsewhere.
 */
export class DecisionGatewayConfig extends OAuthConfig {}
