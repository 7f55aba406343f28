export { ConfigError, loadConfig } from './load-config';
export { PlatformConfig, REGIONS, intFromEnv, isRegion, regionUrls, type Region } from './platform-config';
export { ConfigModule } from './config.module';
export { Clock, FakeClock, SystemClock } from './clock';
