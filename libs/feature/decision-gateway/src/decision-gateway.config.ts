import { PeopleConfig } from './people/people.config';

/**
 * decision-gateway's variables (validated at boot with every feature's, failing by name): the platform's,
 * the OpenID provider's (`OAUTH_*`, see oauth/README.md) and people's (see people/README.md); a variable of its own is declared here, never read from the environment elsewhere.
 */
export class DecisionGatewayConfig extends PeopleConfig {}
