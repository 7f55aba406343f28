import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Public } from '@svc/auth';
import { isIdOf } from '@svc/ids';
import { oversightError } from '../oversight.errors';
import { attesterTokenDigest, type AttesterPermission, type AttesterPrincipal } from './attester';
import { AuthenticateAttester } from './use-cases/authenticate-attester.use-case';

const ATTESTER_PERMISSION = 'svc:attester-permission';
export type { AttesterPrincipal } from './attester';

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' };

interface AttesterRequest {
  headers: Record<string, string | string[] | undefined>;
  attester?: AttesterPrincipal;
}

/**
 * Authenticates `Authorization: Bearer tat_<region>_<base64url(32)>` by SHA-256 digest (current
 * slot, or previous slot inside its overlap) and checks the route's permission through
 * {@link AuthenticateAttester}; a missing or malformed header is 401 before any lookup.
 */
@Injectable()
export class AttesterAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticate: AuthenticateAttester,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AttesterRequest>();
    const permission = this.reflector.get<AttesterPermission>(ATTESTER_PERMISSION, context.getHandler());
    const raw = request.headers.authorization;
    const authorization = Array.isArray(raw) ? raw[0] : raw;
    if (authorization === undefined) {
      throw oversightError('unauthenticated', 'Authentication required: send Authorization: Bearer tat_…', undefined, WWW_AUTHENTICATE);
    }
    const token = /^Bearer ([\x21-\x7e]{1,128})$/i.exec(authorization.trim())?.[1];
    if (!token || !isIdOf('trusted_attester_token', token)) {
      throw oversightError(
        'invalid_token',
        'Authorization must carry a trusted attester token (Bearer tat_…)',
        undefined,
        WWW_AUTHENTICATE,
      );
    }
    const found = await this.authenticate.execute(attesterTokenDigest(token), permission);
    request.attester = found;
    return true;
  }
}

/**
 * Marks a route as called by a trusted attester holding `permission`: anonymous for the platform
 * API-token guard, authenticated by {@link AttesterAuthGuard}.
 */
export const AttesterRoute = (permission: AttesterPermission): MethodDecorator =>
  applyDecorators(Public(), SetMetadata(ATTESTER_PERMISSION, permission), UseGuards(AttesterAuthGuard));

/** Injects the authenticated attester of an {@link AttesterRoute}. */
export const CurrentAttester = createParamDecorator((_data: unknown, context: ExecutionContext): AttesterPrincipal => {
  const request = context.switchToHttp().getRequest<AttesterRequest>();
  if (!request.attester) throw new Error('CurrentAttester used on a route without AttesterRoute');
  return request.attester;
});
