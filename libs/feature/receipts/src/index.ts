export { ReceiptsModule } from './receipts.module';
export { receiptsFeature } from './receipts.feature';
