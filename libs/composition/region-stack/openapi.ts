import type { DynamicModule, Type } from '@nestjs/common';
import { HealthController, buildOpenApiDocument } from '@svc/server';
import { WEBHOOK_DELIVERY_HEADERS, documentedWebhooks } from '@svc/webhook-dispatcher';
import { ALL_FEATURES } from './features';

type ModuleRef = Type<unknown> | DynamicModule | Promise<DynamicModule>;

function collectControllers(modules: readonly ModuleRef[], seen = new Set<unknown>()): Type<unknown>[] {
  const controllers: Type<unknown>[] = [];
  for (const entry of modules) {
    if (entry instanceof Promise || seen.has(entry)) continue;
    seen.add(entry);
    const moduleClass = 'module' in entry ? entry.module : entry;
    const dynamic = 'module' in entry ? entry : undefined;
    controllers.push(
      ...((Reflect.getMetadata('controllers', moduleClass) as Type<unknown>[] | undefined) ?? []),
      ...(dynamic?.controllers ?? []),
    );
    const imports = [
      ...((Reflect.getMetadata('imports', moduleClass) as ModuleRef[] | undefined) ?? []),
      ...((dynamic?.imports as ModuleRef[] | undefined) ?? []),
    ];
    controllers.push(...collectControllers(imports, seen));
  }
  return [...new Set(controllers)];
}

/** The OpenAPI 3.1 document of every service of a region, as routed by its residency router. */
export function regionOpenApiDocument(): Record<string, unknown> {
  return buildOpenApiDocument(
    [HealthController, ...collectControllers(ALL_FEATURES.map((f) => f.module))],
    {
      title: 'Consent, decision and agent-authorization API',
      version: '1.0.0',
      description: 'REST API v1 of one region. Errors answer {message, reason_code, detail}; lists paginate with limit and cursor.',
    },
    { webhooks: documentedWebhooks(), webhookHeaders: WEBHOOK_DELIVERY_HEADERS },
  );
}
