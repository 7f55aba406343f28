import { ProcessConfig } from '@svc/config';
import { Matches } from 'class-validator';

/**
 * The variables of the router in distributed mode, where it proxies to the services behind it. It
 * stores nothing and uses no bus: no database URL, key-encryption key or NATS variables.
 */
export class ResidencyProxyConfig extends ProcessConfig {
  /** Comma-separated `service=url` pairs, e.g. `decision-gateway=http://gateway:8080,...`. */
  @Matches(/^([a-z-]+=https?:\/\/[^,\s]+)(,[a-z-]+=https?:\/\/[^,\s]+)*$/, {
    message: 'SERVICE_URLS must be service=url pairs separated by commas',
  })
  SERVICE_URLS!: string;
}
