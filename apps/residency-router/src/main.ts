import { residencyProxyFeature, residencyRouterFeature } from '@svc/residency-router';
import { runMain, startProcess } from '@svc/server';

// The proxy is installed before the residency guard, as the ingress's first hooks.
runMain(() =>
  startProcess({
    features: [residencyProxyFeature, residencyRouterFeature],
    env: { SERVICE_NAME: 'residency-router', ...process.env },
    bodyParser: false,
  }),
);
