export { ConsentRecordsModule } from './consent-records.module';
export { consentRecordsFeature } from './consent-records.feature';
