import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsString,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { SIGNATURE_FORMATS } from './signature-formats';
import { SUBSCRIBABLE_EVENT_TYPES } from '../webhook-events';
import { MAX_WEBHOOK_URL_LENGTH } from './webhook-url';

/**
 * Signature header sets: `svc` (the spec's `X-Svc-*`, always required) and optionally
 * `standard_webhooks`. When optional, absence keeps the default (`["svc"]`); null is refused, never
 * read as absent.
 */
function SignatureFormatsField(presence: 'optional' | 'required'): PropertyDecorator {
  return (target, property) => {
    const decorators = [
      presence === 'optional' ? ValidateIf((body: { signature_formats?: unknown }) => body.signature_formats !== undefined) : IsDefined(),
      IsArray(),
      ArrayMinSize(1),
      ArrayMaxSize(SIGNATURE_FORMATS.length),
      ArrayUnique(),
      IsIn(SIGNATURE_FORMATS, { each: true }),
      ValidateBy({
        name: 'includesSvc',
        validator: {
          validate: (value: unknown) => Array.isArray(value) && value.includes('svc'),
          defaultMessage: () => 'signature_formats must include "svc"; the X-Svc-* headers are always sent',
        },
      }),
      // The custom rule has no schema of its own (the generator would point at the `Array` type): say it here.
      JSONSchema((generated) => {
        const { $ref: _typeRef, ...schema } = generated as Record<string, unknown>;
        return { ...schema, contains: { const: 'svc' } };
      }),
    ];
    for (const decorate of decorators) decorate(target, property as string);
  };
}

/** Body of POST /api/v1/applications/:application_id/webhook_subscriptions. */
export class CreateSubscriptionBody {
  /** Endpoint receiving the POSTs; https (development applications: also http://localhost, http://127.0.0.1). */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  /** Event names to deliver (duplicates collapse); an unknown name is refused by name. */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE_EVENT_TYPES.length)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  events!: string[];

  /** `["svc"]` (default) or `["svc", "standard_webhooks"]` to add the Standard Webhooks headers. */
  @SignatureFormatsField('optional')
  signature_formats?: string[];
}

/** Body of PATCH /api/v1/applications/:application_id/webhook_subscriptions/:subscription_id. */
export class UpdateSubscriptionBody {
  /** `["svc"]` or `["svc", "standard_webhooks"]`; applies from the next attempt on. */
  @SignatureFormatsField('required')
  signature_formats!: string[];
}
