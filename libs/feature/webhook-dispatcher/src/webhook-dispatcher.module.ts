import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { DeliveriesRepository } from './deliveries/deliveries.repository';
import { DeliveryWorker } from './deliveries/delivery-worker';
import { EventIntake } from './intake/event-intake';
import { WEBHOOKS_SCHEMA } from './schema';
import { SubscriptionsController } from './subscriptions/subscriptions.controller';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository';
import { SubscriptionsGauge } from './subscriptions/subscriptions-gauge';
import { CreateSubscription } from './subscriptions/use-cases/create-subscription.use-case';
import { UpdateSubscription } from './subscriptions/use-cases/update-subscription.use-case';
import { DeleteSubscription } from './subscriptions/use-cases/delete-subscription.use-case';
import { EnableSubscription } from './subscriptions/use-cases/enable-subscription.use-case';
import { RotateSecret } from './subscriptions/use-cases/rotate-secret.use-case';
import { SendTestDelivery } from './subscriptions/use-cases/send-test-delivery.use-case';
import { WEBHOOKS_OUTBOX } from './tokens';

/** webhook-dispatcher: webhook subscriptions and secrets, signed delivery, retries, auto-disable, rotation. */
@Module({
  controllers: [SubscriptionsController, EventIntake],
  providers: [
    { provide: WEBHOOKS_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(WEBHOOKS_SCHEMA), inject: [OutboxRegistry] },
    SubscriptionsRepository,
    SubscriptionsGauge,
    DeliveriesRepository,
    DeliveryWorker,
    CreateSubscription,
    UpdateSubscription,
    DeleteSubscription,
    RotateSecret,
    EnableSubscription,
    SendTestDelivery,
  ],
  exports: [DeliveryWorker, DeliveriesRepository],
})
export class WebhookDispatcherModule {}
