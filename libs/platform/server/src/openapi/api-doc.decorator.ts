import { SetMetadata } from '@nestjs/common';

export const API_DOC = 'svc:api-doc';

/** Extra documentation of a route for the OpenAPI document. */
export interface ApiDocOptions {
  summary?: string;
  description?: string;
  tag?: string;
  /** Description of the success response. */
  response?: string;
  /** Error statuses the route can answer; defaults are derived from auth and body. */
  errors?: number[];
}

/** Documents a route in the OpenAPI document (paths, bodies and security are derived anyway). */
export const ApiDoc = (options: ApiDocOptions): MethodDecorator => SetMetadata(API_DOC, options);
