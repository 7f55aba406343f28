export { ConfigError, LoadedConfigs, loadConfig, loadConfigs, type Environment } from './load-config';
export { DEFAULT_REGION_COUNTRIES, PlatformConfig, ProcessConfig, REGIONS, intFromEnv, isRegion, homeRegionOf, regionCountries, regionUrls, type Region } from './platform-config';
export { Clock, FakeClock, SystemClock } from './clock';
