export { OversightWitnessModule } from './oversight-witness.module';
export { oversightWitnessFeature } from './oversight-witness.feature';
