import { Module } from '@nestjs/common';

/** oap-authorizer: agent identities, authorities, POST /api/v1/grants and the 15-step cascade, agent tokens, capability documents, escalations, revocations, verification endpoints. */
@Module({})
export class OapAuthorizerModule {}
