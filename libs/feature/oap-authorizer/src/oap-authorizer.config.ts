import { readFileSync } from 'node:fs';
import { PlatformConfig } from '@svc/config';
import {
  IsOptional,
  IsString,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parseTrustLists, type TrustListDocument } from './grants/evidence/trust-list-document';

/** The trust-lists source a variable names parses (a readable file, or inline JSON) as a trust-lists document. */
@ValidatorConstraint({ name: 'trustLists' })
class TrustListsSource implements ValidatorConstraintInterface {
  private reason = 'invalid';

  validate(_value: unknown, args: ValidationArguments): boolean {
    const config = args.object as OapAuthorizerConfig;
    // The file wins: the inline document is not read when a file is named.
    if (args.property === 'OAP_TRUST_LISTS' && config.OAP_TRUST_LISTS_FILE) return true;
    try {
      config.trustLists();
      return true;
    } catch (error) {
      this.reason = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must hold the trust lists as JSON (${this.reason})`;
  }
}

/** oap-authorizer's variables (validated at boot with every feature's, failing by name). */
export class OapAuthorizerConfig extends PlatformConfig {
  /**
   * Path of the deploy-managed trust lists (spec, Authentication rule 13), a JSON file shipped with
   * the deployment (e.g. a mounted ConfigMap). Read once at boot.
   */
  @IsOptional()
  @IsString()
  @Validate(TrustListsSource)
  OAP_TRUST_LISTS_FILE?: string;

  /** The same JSON inline, when OAP_TRUST_LISTS_FILE is not set. Neither set: both lists are empty. */
  @IsOptional()
  @IsString()
  @Validate(TrustListsSource)
  OAP_TRUST_LISTS?: string;

  #trustLists?: TrustListDocument;

  /**
   * The trust lists: the file's document when OAP_TRUST_LISTS_FILE is set, else OAP_TRUST_LISTS's;
   * read and parsed once, by the validation at boot.
   */
  trustLists(): TrustListDocument {
    this.#trustLists ??= parseTrustLists(
      this.OAP_TRUST_LISTS_FILE ? readFileSync(this.OAP_TRUST_LISTS_FILE, 'utf8') : this.OAP_TRUST_LISTS,
    );
    return this.#trustLists;
  }
}
