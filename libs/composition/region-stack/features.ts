import { auditChainFeature, residencyRegisterFeature } from '@svc/audit-chain';
import { consentRecordsFeature } from '@svc/consent-records';
import { decisionGatewayFeature } from '@svc/decision-gateway';
import { oapAuthorizerFeature } from '@svc/oap-authorizer';
import { oversightWitnessFeature } from '@svc/oversight-witness';
import { receiptsFeature } from '@svc/receipts';
import { residencyRouterFeature } from '@svc/residency-router';
import type { FeatureDefinition } from '@svc/server';
import { webhookDispatcherFeature } from '@svc/webhook-dispatcher';

/** Every service of a region, ingress first so its residency guard runs before any route. */
export const ALL_FEATURES: readonly FeatureDefinition[] = [
  residencyRouterFeature,
  decisionGatewayFeature,
  consentRecordsFeature,
  oapAuthorizerFeature,
  oversightWitnessFeature,
  receiptsFeature,
  webhookDispatcherFeature,
  auditChainFeature,
  residencyRegisterFeature,
];
