import type { LookupAddress } from 'node:dns';
import { guardedLookup, refusedTargetOf, TargetRefusedError, type ResolveAll } from './target-check';

/** A resolver answering from a fixed table; unknown names do not resolve. */
const resolver =
  (table: Record<string, string[]>): ResolveAll =>
  (hostname, _options, callback) => {
    const found = table[hostname];
    if (!found) callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    else
      callback(
        null,
        found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  };

describe('configuration-time target check', () => {
  const table = {
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
    'public.example.com': ['93.184.216.34', '2606:4700::1111'],
    'local.example.com': ['127.0.0.1', '::1'],
  };

  it.each([
    ['169.254.169.254', 'metadata'],
    ['10.1.2.3', 'private'],
    ['[fd00:ec2::254]', 'metadata'],
    ['[::ffff:127.0.0.1]', 'loopback'],
  ])('refuses the literal address %s for production, naming its range (%s)', async (host, range) => {
    const refused = await refusedTargetOf(host, 'production', resolver({}));
    expect(refused).toBeInstanceOf(TargetRefusedError);
    expect(refused?.range).toBe(range);
  });

  it('refuses a name when any one of its addresses is refused, accepts one whose addresses are all public', async () => {
    expect((await refusedTargetOf('mixed.example.com', 'production', resolver(table)))?.range).toBe('private');
    expect(await refusedTargetOf('public.example.com', 'production', resolver(table))).toBeUndefined();
  });

  it('lets development reach a loopback name or literal, and production neither', async () => {
    expect(await refusedTargetOf('local.example.com', 'development', resolver(table))).toBeUndefined();
    expect(await refusedTargetOf('127.0.0.1', 'development', resolver(table))).toBeUndefined();
    expect((await refusedTargetOf('local.example.com', 'production', resolver(table)))?.range).toBe('loopback');
  });

  it('accepts a name that does not resolve (yet), or whose resolution does not answer in time', async () => {
    expect(await refusedTargetOf('not-yet.example.com', 'production', resolver(table))).toBeUndefined();
    const silent: ResolveAll = () => undefined;
    expect(await refusedTargetOf('slow.example.com', 'production', silent, 20)).toBeUndefined();
  });
});

describe('guarded lookup', () => {
  const lookupOf = (hostname: string, environment: 'development' | 'production', all: boolean, table: Record<string, string[]>) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) => {
      const lookup = guardedLookup(environment, resolver(table));
      lookup(hostname, { all }, (error, address) => resolve({ error, address }));
    });

  it('hands back exactly the addresses it checked', async () => {
    const table = { 'public.example.com': ['93.184.216.34', '2606:4700::1111'] };
    expect(await lookupOf('public.example.com', 'production', false, table)).toEqual({ error: null, address: '93.184.216.34' });
    expect((await lookupOf('public.example.com', 'production', true, table)).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('fails with the refusal when any address is refused, and passes resolution errors on', async () => {
    const refused = await lookupOf('rebound.example.com', 'production', false, {
      'rebound.example.com': ['93.184.216.34', '169.254.169.254'],
    });
    expect(refused.error).toBeInstanceOf(TargetRefusedError);
    expect((refused.error as TargetRefusedError).range).toBe('metadata');
    expect((await lookupOf('gone.example.com', 'production', false, {})).error?.code).toBe('ENOTFOUND');
  });
});
