import { Module } from '@nestjs/common';

/** webhook-dispatcher: webhook subscriptions and secrets, signed delivery, retries, auto-disable, rotation. */
@Module({})
export class WebhookDispatcherModule {}
