export { ConfigError, LoadedConfigs, loadConfig, loadConfigs, type Environment } from './load-config';
export {
  DEFAULT_REGION_COUNTRIES,
  PlatformConfig,
  ProcessConfig,
  REGIONS,
  intFromEnv,
  isRegion,
  homeRegionOf,
  regionCountries,
  regionUrls,
  type Region,
} from './platform-config';
export { Clock, FakeClock, SystemClock } from './clock';
export { FAULT_POINTS, FAULT_POINTS_VARIABLE, faultPoint, parseFaultPoints, type FaultArming, type FaultPointName } from './fault-points';
export { BACKEND_SERVICE_NAMES, SERVICE_NAMES, type ServiceName } from './services';
