export { ResidencyRouterModule } from './residency-router.module';
export { ROUTE_TABLE, SERVICE_NAMES, parseServiceUrls, serviceForPath, type ServiceName } from './route-table';
export { regionVerdict, type RegionVerdict } from './region-guard';
export { installRegionGuard, type RegionGuardOptions } from './install-region-guard';
export { installProxy, roundRobin } from './install-proxy';
export { residencyProxyFeature, residencyRouterFeature } from './residency-router.feature';
export { ResidencyProxyConfig } from './residency-router.config';
