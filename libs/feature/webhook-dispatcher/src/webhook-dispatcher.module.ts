import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { DeliveriesRepository } from './deliveries/deliveries.repository';
import { DeliveryWorker } from './deliveries/delivery-worker';
import { EventIntake } from './intake/event-intake';
import { WEBHOOKS_SCHEMA } from './schema';
import { SubscriptionsController } from './subscriptions/subscriptions.controller';
import { SubscribedApplications } from './subscriptions/subscribed-applications';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository';
import { SubscriptionsGauge } from './subscriptions/subscriptions-gauge';
import { CreateSubscription } from './subscriptions/use-cases/create-subscription.use-case';
import { UpdateSubscription } from './subscriptions/use-cases/update-subscription.use-case';
import { DeleteSubscription } from './subscriptions/use-cases/delete-subscription.use-case';
import { EnableSubscription } from './subscriptions/use-cases/enable-subscription.use-case';
import { RotateSecret } from './subscriptions/use-cases/rotate-secret.use-case';
import { SendTestDelivery } from './subscriptions/use-cases/send-test-delivery.use-case';
import { WEBHOOKS_OUTBOX } from './tokens';
import { SetDeliveriesRepository } from './ssf/set-deliveries.repository';
import { SetDeliveryWorker } from './ssf/set-delivery-worker';
import { SetSigner } from './ssf/set-signer';
import { SsfIntake } from './ssf/ssf-intake';
import { SsfStreamsController } from './ssf/ssf-streams.controller';
import { SsfStreamsRepository } from './ssf/ssf-streams.repository';
import { SsfStreams } from './ssf/ssf-streams.service';

/** webhook-dispatcher: webhook subscriptions and secrets, signed delivery, retries, auto-disable, rotation; the Shared Signals transmitter. */
@Module({
  controllers: [SubscriptionsController, SsfStreamsController, EventIntake, SsfIntake],
  providers: [
    { provide: WEBHOOKS_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(WEBHOOKS_SCHEMA), inject: [OutboxRegistry] },
    SubscriptionsRepository,
    SubscribedApplications,
    SubscriptionsGauge,
    DeliveriesRepository,
    DeliveryWorker,
    CreateSubscription,
    UpdateSubscription,
    DeleteSubscription,
    RotateSecret,
    EnableSubscription,
    SendTestDelivery,
    SsfStreamsRepository,
    SetDeliveriesRepository,
    SetSigner,
    SetDeliveryWorker,
    SsfStreams,
  ],
  exports: [DeliveryWorker, DeliveriesRepository, SetDeliveryWorker],
})
export class WebhookDispatcherModule {}
