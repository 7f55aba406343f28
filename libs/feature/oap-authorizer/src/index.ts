export { OapAuthorizerModule } from './oap-authorizer.module';
export { oapAuthorizerFeature } from './oap-authorizer.feature';
