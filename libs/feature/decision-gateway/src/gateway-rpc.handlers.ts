import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { ApplicationsRepository } from './applications/applications.repository';

/** Answers other services' synchronous questions about credentials and applications. */
@Injectable()
export class GatewayRpcHandlers implements OnModuleInit {
  constructor(
    private readonly rpc: RpcServer,
    private readonly applications: ApplicationsRepository,
  ) {}

  onModuleInit(): void {
    this.rpc.handle('gateway.resolve_credential', async (request) => {
      const { credential } = request;
      if (credential.case === 'apiTokenSha256Hex') {
        const owner = await this.applications.findByTokenDigest(credential.value);
        if (!owner) return { found: false };
        const app = owner.application;
        return { found: true, applicationId: app.id, credentialId: owner.credentialId, scopes: owner.scopes, environment: app.environment, region: app.region, mode: app.mode };
      }
      if (credential.case === 'publishableKey') {
        const app = await this.applications.findByPublishableKey(credential.value);
        if (!app) return { found: false };
        return { found: true, applicationId: app.id, credentialId: credential.value, scopes: [], environment: app.environment, region: app.region, mode: app.mode };
      }
      return { found: false };
    });
    this.rpc.handle('gateway.get_application', async (request) => {
      const app = await this.applications.findApplication(request.applicationId);
      if (!app) return { found: false };
      return {
        found: true,
        applicationId: app.id,
        name: app.name,
        environment: app.environment,
        mode: app.mode,
        capabilitiesPublished: app.capabilitiesPublished,
        allowedOrigins: await this.applications.allOrigins(app.id),
      };
    });
  }
}
