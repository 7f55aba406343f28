import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { VerifyPresentationBody } from '../credentials/credentials.dto';
import { PresentationVerificationResponse } from '../credentials/credentials.response';
import { VerifyPresentation } from './verify-presentation';

/**
 * `POST /api/v1/presentations`: the verifying application hands over what a wallet presented and
 * the nonce it gave the wallet; the answer names each check. A credential issued in another region
 * is verified against that region's published did:web key and status list: the issuing region is
 * never asked about the credential (spec, Cross-border endpoints).
 */
@Controller('api/v1/presentations')
@Auth('api_token')
export class PresentationsController {
  constructor(
    private readonly verify: VerifyPresentation,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiDoc({
    tag: 'Verify',
    summary: 'Verify an SD-JWT VC presentation (with key binding) or a W3C VC-JWT; the result names each check',
    description: 'Checks, in order: format, issuer_trusted (the deploy-managed trust list; every region of the deployment is on it), signature (issuer key from its did:web document or JWKS), disclosures, validity_period, key_binding (KB-JWT signed by cnf.jwk, nonce, audience = `audience` or the caller\'s application id, sd_hash), status (IETF Token Status List). 200 whether or not `valid`.',
    errors: [400, 401, 422],
  })
  @ApiResponseOf(PresentationVerificationResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: VerifyPresentationBody): Promise<PresentationVerificationResponse> {
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
      checks: result.checks.map((check) => ({ check: check.check, result: check.result, ...(check.reason ? { reason: check.reason } : {}) })),
      verified_at: this.clock.now().toISOString(),
    } satisfies PresentationVerificationResponse;
  }
}
