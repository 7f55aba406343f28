import { Module } from '@nestjs/common';
import { ResidencyRpcHandlers } from './residency-rpc.handlers';
import { TransferRegisterController } from './transfer-register.controller';
import { TransferRegister } from './transfer-register.service';

/** The transfer register, residency posture and their evidence packages (schema `residency`). */
@Module({
  controllers: [TransferRegisterController, ResidencyRpcHandlers],
  providers: [TransferRegister],
  exports: [TransferRegister],
})
export class ResidencyRegisterModule {}
