import { PlatformConfig } from '@svc/config';
import { Matches } from 'class-validator';

/** The ingress also needs the base URL of every service behind it. */
export class RouterConfig extends PlatformConfig {
  /** Comma-separated `service=url` pairs, e.g. `decision-gateway=http://gateway:8080,...`. */
  @Matches(/^([a-z-]+=https?:\/\/[^,\s]+)(,[a-z-]+=https?:\/\/[^,\s]+)*$/, { message: 'SERVICE_URLS must be service=url pairs separated by commas' })
  SERVICE_URLS!: string;
}
