import { Injectable } from '@nestjs/common';
import { apiTokenDigest, type CounterpartyScope, type Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId, type IdRegion } from '@svc/ids';
import { ApplicationsRepository } from '../../applications/applications.repository';
import { roleOf, statusAfter, type TrustPairing, type TrustPairingMove, type TrustPairingRole } from '../trust-pairing';
import { trustPairingError } from '../trust-pairings.errors';
import { TrustPairingsRepository } from '../trust-pairings.repository';

/** A pairing the caller is a party to, with the caller's side; any other answers 404 like an unknown one. */
export async function visiblePairing(
  repo: TrustPairingsRepository,
  principal: Principal,
  id: string,
): Promise<{ pairing: TrustPairing; role: TrustPairingRole }> {
  const pairing = await repo.find(id);
  const role = pairing ? roleOf(pairing, principal.applicationId) : undefined;
  if (!pairing || !role) throw trustPairingError('trust_pairing_not_found', 'Trust pairing not found', { trust_pairing_id: id });
  return { pairing, role };
}

/** The issuing application (the caller) proposes a pairing to a counterparty application of its region and environment. */
@Injectable()
export class ProposeTrustPairing {
  constructor(
    private readonly pairings: TrustPairingsRepository,
    private readonly applications: ApplicationsRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    input: { counterpartyApplicationId: string; scopes: CounterpartyScope[]; name?: string },
  ): Promise<TrustPairing> {
    const issuer = await this.applications.findApplication(principal.applicationId);
    const counterparty =
      input.counterpartyApplicationId === principal.applicationId
        ? undefined
        : await this.applications.findApplication(input.counterpartyApplicationId);
    // Data never crosses environments: a sandbox application pairs only with sandbox applications.
    if (!issuer || !counterparty || counterparty.environment !== issuer.environment) {
      throw trustPairingError(
        'trust_pairing_counterparty_invalid',
        'counterparty_application_id must name another application of this region and environment',
        {
          field: 'counterparty_application_id',
        },
      );
    }
    const now = this.clock.now();
    const pairing: TrustPairing = {
      id: newRegionalId('trust_pairing', this.config.REGION as IdRegion),
      issuerApplicationId: issuer.id,
      counterpartyApplicationId: counterparty.id,
      name: input.name ?? `${issuer.name} → ${counterparty.name}`,
      scopes: [...input.scopes],
      status: 'proposed',
      proposedAt: now,
      acceptedAt: null,
      declinedAt: null,
      revokedAt: null,
      revokedBy: null,
      updatedAt: now,
    };
    const inserted = await this.pairings.transaction((manager) => this.pairings.insert(manager, pairing));
    if (!inserted) {
      const open = await this.pairings.openBetween(issuer.id, counterparty.id);
      throw trustPairingError('trust_pairing_exists', 'An open trust pairing already joins these applications', {
        trust_pairing_id: open?.id ?? null,
      });
    }
    return pairing;
  }
}

/**
 * Accept, decline or revoke. Accepting (the counterparty) issues the counterparty token, returned
 * once and kept as its SHA-256; revoking (either side) clears the digest in the same statement, so
 * the token is refused from that commit on (counterparty tokens are never cached).
 */
@Injectable()
export class MoveTrustPairing {
  constructor(
    private readonly pairings: TrustPairingsRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    id: string,
    move: TrustPairingMove,
  ): Promise<{ pairing: TrustPairing; role: TrustPairingRole; token?: string }> {
    return this.pairings.transaction(async (manager) => {
      const pairing = await this.pairings.find(id, { manager, lock: true });
      const role = pairing ? roleOf(pairing, principal.applicationId) : undefined;
      if (!pairing || !role) throw trustPairingError('trust_pairing_not_found', 'Trust pairing not found', { trust_pairing_id: id });
      const next = statusAfter(pairing.status, role, move);
      if (!next) {
        throw trustPairingError(
          'trust_pairing_status',
          `A ${pairing.status} trust pairing cannot be ${move === 'accept' ? 'accepted' : move === 'decline' ? 'declined' : 'revoked'} by its ${role}`,
          {
            status: pairing.status,
            role,
          },
        );
      }
      const now = this.clock.now();
      const token = next === 'active' ? newRegionalId('counterparty_token', this.config.REGION as IdRegion) : undefined;
      const moved = await this.pairings.move(manager, pairing.id, next, now, {
        tokenSha256: token ? apiTokenDigest(token) : undefined,
        by: next === 'revoked' ? principal.applicationId : undefined,
      });
      return { pairing: moved, role, ...(token ? { token } : {}) };
    });
  }
}
