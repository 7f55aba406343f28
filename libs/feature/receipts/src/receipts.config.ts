import { PlatformConfig } from '@svc/config';

/**
 * receipts's variables (validated at boot with every feature's, failing by name): the platform's
 * today; a variable of its own is declared here, never read from the environment elsewhere.
 */
export class ReceiptsConfig extends PlatformConfig {}
