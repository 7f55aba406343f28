import { createHash } from 'node:crypto';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, regionCountries } from '@svc/config';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { ReceiptsConfig } from '../receipts.config';
import { receiptsError } from '../receipts.errors';
import { VerifyPresentationBody } from '../credentials/credentials.dto';
import { PresentationVerificationResponse } from '../credentials/credentials.response';
import { VerifyPresentation } from './verify-presentation';

/**
 * `POST /api/v1/presentations`: the verifying application hands over what a wallet presented and
 * the nonce it gave the wallet; the answer names each check. A credential issued in another region
 * is verified against that region's published did:web key and status list: the issuing region is
 * never asked about the credential (spec, Cross-border endpoints). The personal data it carries
 * arrives here from the issuing country: that crossing is written to the transfer register
 * (`residency.record_transfer`, an inbound crossing) with the caller's lawful basis before the
 * credential is verified, and refused without one.
 */
@Controller('api/v1/presentations')
@Auth('api_token')
export class PresentationsController {
  constructor(
    private readonly verify: VerifyPresentation,
    private readonly clock: Clock,
    private readonly rpc: RpcClient,
    private readonly config: ReceiptsConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiDoc({
    tag: 'Verify',
    summary: 'Verify an SD-JWT VC presentation (with key binding) or a W3C VC-JWT; the result names each check',
    description:
      "Checks, in order: format, issuer_trusted (the deploy-managed trust list; every region of the deployment is on it), signature (issuer key from its did:web document or JWKS), disclosures, validity_period, key_binding (KB-JWT signed by cnf.jwk, nonce, audience = `audience` or the caller's application id, sd_hash), status (IETF Token Status List). 200 whether or not `valid`.",
    errors: [400, 401, 422],
  })
  @ApiResponseOf(PresentationVerificationResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: VerifyPresentationBody): Promise<PresentationVerificationResponse> {
    const transferId = await this.recordCrossing(principal.applicationId, body);
    const result = await this.verify.execute(body.presentation, { nonce: body.nonce, audience: body.audience ?? principal.applicationId });
    return {
      object: 'presentation_verification',
      valid: result.valid,
      format: result.format,
      issuer: result.issuer,
      issuer_region: result.issuerRegion,
      issuer_country: result.issuerCountry,
      vct: result.vct,
      disclosed_claims: result.claims,
      checks: result.checks.map((check) => ({
        check: check.check,
        result: check.result,
        ...(check.reason ? { reason: check.reason } : {}),
      })),
      verified_at: this.clock.now().toISOString(),
      ...(transferId ? { transfer_id: transferId } : {}),
    } satisfies PresentationVerificationResponse;
  }

  /**
   * Writes the crossing of a credential issued in another region of the deployment to this
   * region's transfer register before it is verified (an inbound crossing: from the issuing
   * country to this one), idempotent per presentation. Nothing for a credential of this region or
   * an issuer outside the deployment.
   * @throws DomainError `lawful_basis_required` (422, `detail.field`), or the register's own refusal.
   */
  private async recordCrossing(applicationId: string, body: VerifyPresentationBody): Promise<string | undefined> {
    const issuer = this.verify.issuerRegionOf(body.presentation);
    if (!issuer || issuer.region === this.config.REGION) return undefined;
    const countries = regionCountries(this.config) as Record<string, string>;
    const fromCountry = issuer.country ?? countries[issuer.region];
    const here = countries[this.config.REGION]!;
    if (!fromCountry || fromCountry === here) return undefined;
    if (!body.lawful_basis) {
      throw receiptsError(
        'lawful_basis_required',
        `The credential was issued in region ${issuer.region}: its presented data crosses from ${fromCountry}, and a crossing needs a lawful basis`,
        { field: 'lawful_basis' },
      );
    }
    const reply = await this.rpc.call('residency.record_transfer', {
      applicationId,
      dataCategories: ['identifiers', 'presented_credentials'],
      fromCountry,
      toCountry: here,
      recipient: `verifying application ${applicationId}`,
      purpose: 'verify a credential issued in another region that its holder presented',
      lawfulBasis: body.lawful_basis,
      derogationArticle: body.derogation_article ?? '',
      transferCase: 'presentation',
      reference: `presentation:${createHash('sha256').update(body.presentation).digest('hex')}`,
      recordIds: [],
    });
    return reply.transferId;
  }
}
