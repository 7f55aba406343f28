import { Injectable } from '@nestjs/common';
import { OapAuthorizerConfig } from '../../oap-authorizer.config';
import type { TrustListDocument, TrustedIssuer } from './trust-list-document';

export { parseTrustLists, type TrustListDocument, type TrustedIssuer } from './trust-list-document';

/**
 * The trust lists of this deployment, from `OAP_TRUST_LISTS_FILE` or `OAP_TRUST_LISTS`, read and
 * checked with every other variable before the process starts ({@link OapAuthorizerConfig}).
 */
@Injectable()
export class TrustLists {
  readonly document: TrustListDocument;

  constructor(config: OapAuthorizerConfig) {
    this.document = config.trustLists();
  }

  credentialIssuer(iss: string, region: string): TrustedIssuer | undefined {
    return this.document.agent_credential_issuers.find((i) => i.iss === iss && (!i.regions || i.regions.includes(region)));
  }

  attestationProvider(iss: string, region: string): TrustedIssuer | undefined {
    return this.document.attestation_providers.find((i) => i.iss === iss && (!i.regions || i.regions.includes(region)));
  }
}
