export { ConfigError, loadConfig } from './load-config';
export { DEFAULT_REGION_COUNTRIES, PlatformConfig, REGIONS, intFromEnv, isRegion, homeRegionOf, regionCountries, regionUrls, type Region } from './platform-config';
export { ConfigModule } from './config.module';
export { Clock, FakeClock, SystemClock } from './clock';
