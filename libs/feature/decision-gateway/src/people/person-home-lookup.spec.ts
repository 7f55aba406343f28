import { createHmac } from 'node:crypto';
import type { RpcClient } from '@svc/bus';
import type { PlatformConfig } from '@svc/config';
import type { Logger } from '@svc/telemetry';
import type { PeopleConfig } from './people.config';
import type { PeopleRepository } from './people.repository';
import { PersonHomeLookup, emailLookupDigest } from './person-home-lookup';

const KEY = Buffer.alloc(32, 3).toString('base64');

function lookup(key: string | undefined, found: Record<string, boolean | 'silent'> = {}) {
  const asked: Array<{ region: string; digest: Uint8Array }> = [];
  const regionRpc = {
    tryCallInRegion: async (region: string, _method: string, request: { emailDigest: Uint8Array }) => {
      asked.push({ region, digest: request.emailDigest });
      const answer = found[region];
      return answer === 'silent' ? undefined : { found: answer === true };
    },
  } as unknown as RpcClient;
  const known: Uint8Array[] = [];
  const people = {
    hasEmailLookupDigest: async (digest: Uint8Array) => known.some((k) => Buffer.compare(Buffer.from(k), Buffer.from(digest)) === 0),
  } as unknown as PeopleRepository;
  const service = new PersonHomeLookup(
    people,
    regionRpc,
    { REGION: 'eu' } as PlatformConfig,
    { PEOPLE_LOOKUP_KEY: key } as PeopleConfig,
    {} as Logger,
  );
  return { service, asked, known };
}

describe('PersonHomeLookup', () => {
  it('digests the normalised email under the deployment key (HMAC-SHA256), never the address itself', () => {
    const key = Buffer.from(KEY, 'base64');
    const digest = emailLookupDigest(key, '  Ada@Example.TEST ');
    expect(digest).toEqual(createHmac('sha256', key).update('ada@example.test').digest());
    expect(digest).toHaveLength(32);
    expect(digest.toString('latin1')).not.toContain('example');
  });

  it('asks the other regions only, with the digest, and names the one that answers found', async () => {
    const { service, asked } = lookup(KEY, { us: true, ap: 'silent' });
    expect(await service.homeElsewhere('ada@example.test')).toBe('us');
    expect(asked.map((a) => a.region).sort()).toEqual(['ap', 'us']);
    expect(Buffer.from(asked[0]!.digest)).toEqual(emailLookupDigest(Buffer.from(KEY, 'base64'), 'ada@example.test'));
  });

  it('finds no home when no region answers found (or none answers)', async () => {
    expect(await lookup(KEY, { us: false, ap: 'silent' }).service.homeElsewhere('ada@example.test')).toBeUndefined();
  });

  it('asks nobody and stores no digest without the key', async () => {
    const { service, asked } = lookup(undefined, { us: true });
    expect(await service.homeElsewhere('ada@example.test')).toBeUndefined();
    expect(asked).toEqual([]);
    expect(service.digestOf('ada@example.test')).toBeNull();
    expect(await service.isHomedHere(Buffer.alloc(32))).toBe(false);
  });

  it('answers found only for a 32-byte digest of a person homed here', async () => {
    const { service, known } = lookup(KEY);
    const digest = service.digestOf('ada@example.test')!;
    known.push(digest);
    expect(await service.isHomedHere(digest)).toBe(true);
    expect(await service.isHomedHere(service.digestOf('grace@example.test')!)).toBe(false);
    expect(await service.isHomedHere(digest.subarray(0, 16))).toBe(false);
  });
});
