import { createHmac } from 'node:crypto';
import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { RpcClient, RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { PlatformConfig, REGIONS, type Region } from '@svc/config';
import { regionSegmentOf } from '@svc/ids';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { PeopleConfig } from './people.config';
import { PeopleRepository } from './people.repository';
import { normalizeEmail } from './person';

/** How long a region waits for the other regions' answers about a person's home, ms. */
export const FIND_HOME_TIMEOUT_MS = 1_500;

/** The keyed digest of a normalised email that other regions are asked about (HMAC-SHA256). */
export function emailLookupDigest(key: Buffer, email: string): Buffer {
  return createHmac('sha256', key).update(normalizeEmail(email), 'utf8').digest();
}

/**
 * Finds the home region of a person who signs in at a region where they have no account: the
 * other regions are asked, in parallel, with only the keyed digest of the email
 * (`gateway.find_person_home`), and answer only whether the person is homed there. Without
 * PEOPLE_LOOKUP_KEY nothing is asked.
 */
@Injectable()
export class PersonHomeLookup implements OnApplicationBootstrap {
  private readonly key: Buffer | undefined;

  constructor(
    private readonly people: PeopleRepository,
    private readonly rpc: RpcClient,
    private readonly platform: PlatformConfig,
    @Inject(PeopleConfig) config: PeopleConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.key = config.PEOPLE_LOOKUP_KEY ? Buffer.from(config.PEOPLE_LOOKUP_KEY, 'base64') : undefined;
  }

  /** The digest stored with a new person (null without the key). */
  digestOf(email: string): Buffer | null {
    return this.key ? emailLookupDigest(this.key, email) : null;
  }

  /** People who signed up before the key was configured get their digest at start. */
  async onApplicationBootstrap(): Promise<void> {
    const key = this.key;
    if (!key) return;
    try {
      const filled = await this.people.fillEmailLookupDigests((email) => emailLookupDigest(key, email));
      if (filled > 0) this.logger.info({ filled }, 'person email lookup digests filled');
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'person email lookup digests not filled');
    }
  }

  /** The region where a person with this email is homed, other than this one; undefined when none answers found. */
  async homeElsewhere(email: string): Promise<Region | undefined> {
    const digest = this.digestOf(email);
    if (!digest) return undefined;
    const others = REGIONS.filter((region) => region !== this.platform.REGION);
    const answers = await Promise.all(
      others.map(async (region) =>
        (await this.rpc.tryCallInRegion(region, 'gateway.find_person_home', { emailDigest: digest }, FIND_HOME_TIMEOUT_MS))?.found
          ? region
          : undefined,
      ),
    );
    return answers.find((region): region is Region => region !== undefined);
  }

  /** Whether a person homed here has this digest (false without the key, or for a malformed digest). */
  async isHomedHere(digest: Uint8Array): Promise<boolean> {
    if (!this.key || digest.length !== 32) return false;
    return this.people.hasEmailLookupDigest(digest);
  }
}

/** Answers other regions' `gateway.find_person_home` and `gateway.check_person_homed`: only whether the person is homed here. */
@Controller()
export class PersonHomeRpcHandlers {
  constructor(
    private readonly lookup: PersonHomeLookup,
    private readonly people: PeopleRepository,
    private readonly platform: PlatformConfig,
  ) {}

  @RpcHandler('gateway.check_person_homed')
  async checkPersonHomed(request: RpcRequest<'gateway.check_person_homed'>): Promise<RpcReplyInit<'gateway.check_person_homed'>> {
    if (regionSegmentOf(request.personId) !== this.platform.REGION || !/^usr_[a-z0-9]{2,8}_[a-z2-7]{20}$/.test(request.personId))
      return { found: false };
    return { found: (await this.people.findPerson(request.personId)) !== undefined };
  }

  @RpcHandler('gateway.find_person_home')
  async findPersonHome(request: RpcRequest<'gateway.find_person_home'>): Promise<RpcReplyInit<'gateway.find_person_home'>> {
    return { found: await this.lookup.isHomedHere(request.emailDigest) };
  }
}
