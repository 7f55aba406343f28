import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsString, MaxLength, MinLength } from 'class-validator';
import { SUBSCRIBABLE_EVENT_TYPES } from '../webhook-events';
import { MAX_WEBHOOK_URL_LENGTH } from './webhook-url';

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
}
