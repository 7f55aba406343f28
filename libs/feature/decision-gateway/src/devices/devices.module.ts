import { Module } from '@nestjs/common';
import { DecisionGatewayConfig } from '../decision-gateway.config';
import { PeopleConfig } from '../people/people.config';
import { PeopleModule } from '../people/people.module';
import { DeviceLinkPageController } from './device-link-page.controller';
import { DeviceLinksController } from './device-links.controller';
import { DeviceLinksRepository } from './device-links.repository';
import { DevicePush } from './device-push';
import { DevicePushQueue } from './device-push-queue';

/** Device links and Web Push to them. */
@Module({
  imports: [PeopleModule],
  controllers: [DeviceLinksController, DeviceLinkPageController],
  providers: [{ provide: PeopleConfig, useExisting: DecisionGatewayConfig }, DeviceLinksRepository, DevicePush, DevicePushQueue],
  exports: [DevicePush, DeviceLinksRepository, DevicePushQueue],
})
export class DevicesModule {}
