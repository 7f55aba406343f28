import { loadConfig } from '@svc/config';
import { installProxy, parseServiceUrls, residencyRouterFeature } from '@svc/residency-router';
import { runMain, startProcess } from '@svc/server';
import { RouterConfig } from './router-config';

runMain(async () => {
  const config = loadConfig(RouterConfig, { SERVICE_NAME: 'residency-router', ...process.env });
  const upstreams = parseServiceUrls(config.SERVICE_URLS);
  return startProcess({
    features: [residencyRouterFeature],
    config,
    bodyParser: false,
    configureFastify: (fastify) => installProxy(fastify, upstreams),
  });
});
