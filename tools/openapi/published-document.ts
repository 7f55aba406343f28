import { regionOpenApiDocument } from '@svc/region-stack';
import { withExamples } from './examples';

/** The document `npm run openapi` writes and decision-gateway serves: the region's document with examples. */
export function publishedOpenApiDocument(): Record<string, unknown> {
  return withExamples(regionOpenApiDocument());
}
