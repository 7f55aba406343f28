import { Module } from '@nestjs/common';

/** receipts: durable svc-cr/2.13 records and their flavors, disclosure receipts, the published schema, JWKS. */
@Module({})
export class ReceiptsModule {}
