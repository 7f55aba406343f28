import { readFileSync } from 'node:fs';
import { PlatformConfig, REGIONS, regionCountries, regionUrls } from '@svc/config';
import {
  IsOptional,
  IsString,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { didWebOf } from './credentials/issuer-identity';
import { parseTrustList, type TrustListDocument, type TrustedIssuer } from './presentations/trust-list';

/** The trust list a variable names (a readable file, or inline JSON) parses. */
@ValidatorConstraint({ name: 'verifyTrustList' })
class TrustListSource implements ValidatorConstraintInterface {
  private reason = 'invalid';

  validate(_value: unknown, args: ValidationArguments): boolean {
    const config = args.object as ReceiptsConfig;
    if (args.property === 'VERIFY_TRUST_LIST' && config.VERIFY_TRUST_LIST_FILE) return true;
    try {
      config.trustedIssuers();
      return true;
    } catch (error) {
      this.reason = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must hold the presentation trust list as JSON (${this.reason})`;
  }
}

/**
 * receipts's variables (validated at boot with every feature's, failing by name); a variable of its
 * own is declared here, never read from the environment elsewhere.
 */
export class ReceiptsConfig extends PlatformConfig {
  /**
   * Path of the deploy-managed trust list of `POST /api/v1/presentations` (issuers and where their
   * keys are published), e.g. a mounted ConfigMap. Read once at boot. The deployment's own regions
   * (REGION_URLS, their did:web) are always trusted.
   */
  @IsOptional()
  @IsString()
  @Validate(TrustListSource)
  VERIFY_TRUST_LIST_FILE?: string;

  /** The same JSON inline, when VERIFY_TRUST_LIST_FILE is not set. */
  @IsOptional()
  @IsString()
  @Validate(TrustListSource)
  VERIFY_TRUST_LIST?: string;

  #trusted?: TrustedIssuer[];

  /** The deployment's regions followed by the configured issuers; read and parsed once, at boot. */
  trustedIssuers(): TrustedIssuer[] {
    if (!this.#trusted) {
      const source = this.VERIFY_TRUST_LIST_FILE ? readFileSync(this.VERIFY_TRUST_LIST_FILE, 'utf8') : this.VERIFY_TRUST_LIST;
      const configured: TrustListDocument = source ? parseTrustList(source) : { issuers: [] };
      const urls = regionUrls(this);
      const countries = regionCountries(this);
      const regions: TrustedIssuer[] = REGIONS.flatMap((region) => {
        const url = urls[region]?.replace(/\/+$/, '');
        return url ? [{ issuer: didWebOf(url), did_document_url: `${url}/.well-known/did.json`, region, country: countries[region] }] : [];
      });
      this.#trusted = [...regions, ...configured.issuers];
    }
    return this.#trusted;
  }
}
