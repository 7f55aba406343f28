import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { webhookError } from '../../webhooks.errors';
import { normalizeSignatureFormats } from '../signature-formats';
import type { Subscription } from '../subscription';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { standardWebhooksKey } from '../webhook-secret';
import { ownedSubscription } from './owned-subscription';

/**
 * Changes which signature header sets a subscription's deliveries carry, from the next attempt on.
 * Opting into Standard Webhooks needs a secret in the base64 `whsec_` form; a subscription still on
 * an older secret is told to rotate first rather than silently sending no `webhook-signature`.
 */
@Injectable()
export class UpdateSubscription {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    applicationId: string,
    subscriptionId: string,
    input: { signatureFormats: readonly string[] },
  ): Promise<Subscription> {
    return this.subscriptions.transaction(async (manager) => {
      const current = await ownedSubscription(this.subscriptions, principal, applicationId, subscriptionId, manager);
      const signatureFormats = normalizeSignatureFormats(input.signatureFormats);
      if (
        signatureFormats.includes('standard_webhooks') &&
        standardWebhooksKey(this.kek.decrypt(current.secretEnc, current.id).toString('utf8')) === undefined
      ) {
        throw webhookError('webhook_secret_rotation_required', 'The signing secret predates Standard Webhooks; rotate it, then opt in', {
          field: 'signature_formats',
        });
      }
      return this.subscriptions.updateSignatureFormats(manager, current.id, signatureFormats, this.clock.now());
    });
  }
}
