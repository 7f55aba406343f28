import { DomainError } from '@svc/errors';
import type { ResolveAll } from '@svc/egress';
import { checkWebhookTarget, checkWebhookUrl } from './webhook-url';

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return error instanceof DomainError ? error.code : 'thrown';
  }
}

describe('webhook endpoint URL policy (issue: production subscriptions require HTTPS)', () => {
  it('accepts https for both environments and normalises it', () => {
    expect(checkWebhookUrl('https://Hooks.Example.com/in?x=1', 'production')).toBe('https://hooks.example.com/in?x=1');
    expect(checkWebhookUrl('https://hooks.example.com', 'development')).toBe('https://hooks.example.com/');
  });

  it('accepts http://localhost and http://127.0.0.1 for development applications only', () => {
    expect(checkWebhookUrl('http://localhost:3000/hook', 'development')).toBe('http://localhost:3000/hook');
    expect(checkWebhookUrl('http://127.0.0.1:9/hook', 'development')).toBe('http://127.0.0.1:9/hook');
    expect(codeOf(() => checkWebhookUrl('http://localhost:3000/hook', 'production'))).toBe('webhook_url_requires_https');
    expect(codeOf(() => checkWebhookUrl('http://127.0.0.1/hook', 'production'))).toBe('webhook_url_requires_https');
  });

  it('refuses plain http to any other host, even in development', () => {
    expect(codeOf(() => checkWebhookUrl('http://hooks.example.com/', 'development'))).toBe('webhook_url_requires_https');
    expect(codeOf(() => checkWebhookUrl('http://localhost.example.com/', 'development'))).toBe('webhook_url_requires_https');
  });

  it.each([
    'not a url',
    '/relative',
    'ftp://example.com/x',
    'javascript:alert(1)',
    'https://user:pass@example.com/',
    'https://example.com/#frag',
  ])('refuses %s as webhook_url_invalid', (url) => {
    expect(codeOf(() => checkWebhookUrl(url, 'development'))).toBe('webhook_url_invalid');
  });
});

describe('webhook endpoint target check', () => {
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

  async function refusal(raw: string, environment: 'development' | 'production', table: Record<string, string[]> = {}): Promise<unknown> {
    try {
      await checkWebhookTarget(checkWebhookUrl(raw, environment), environment, resolver(table));
      return 'ok';
    } catch (error) {
      return error instanceof DomainError ? { code: error.code, detail: error.detail } : 'thrown';
    }
  }

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://100.64.0.1/', 'carrier_grade_nat'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[::1]/', 'loopback'],
    ['https://[fd00::1]/', 'unique_local'],
    ['https://[fe80::1]/', 'link_local'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:a9fe:a9fe]/', 'metadata'],
  ])('refuses the literal address of %s for production (%s), naming the url field', async (url, range) => {
    expect(await refusal(url, 'production')).toEqual({ code: 'webhook_url_address_refused', detail: { field: 'url', range } });
  });

  it.each([
    ['https://2130706433/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'],
    ['https://0x7f.1/hook', 'loopback'],
    ['https://0xa9.0376.43518/', 'metadata'],
    ['https://012.0.0.1/', 'private'],
  ])('refuses %s: URL parsing turns integer, octal and hex hosts into the dotted address they denote (%s)', async (url, range) => {
    expect(await refusal(url, 'production')).toEqual({ code: 'webhook_url_address_refused', detail: { field: 'url', range } });
  });

  it('refuses a host name when any of its addresses is refused, and accepts one whose addresses are all public', async () => {
    const table = { 'mixed.example.com': ['93.184.216.34', '10.0.0.7'], 'public.example.com': ['93.184.216.34', '2606:4700::1111'] };
    expect(await refusal('https://mixed.example.com/in', 'production', table)).toEqual({
      code: 'webhook_url_address_refused',
      detail: { field: 'url', range: 'private' },
    });
    expect(await refusal('https://public.example.com/in', 'production', table)).toBe('ok');
  });

  it('accepts a name that does not resolve yet (every delivery checks again before connecting)', async () => {
    expect(await refusal('https://not-yet.example.com/in', 'production')).toBe('ok');
  });

  it('lets development applications use loopback, and nothing else that is not public', async () => {
    expect(await refusal('http://127.0.0.1:9/hook', 'development')).toBe('ok');
    expect(await refusal('http://localhost:3000/hook', 'development', { localhost: ['127.0.0.1', '::1'] })).toBe('ok');
    expect(await refusal('https://[::1]/hook', 'development')).toBe('ok');
    expect(await refusal('https://192.168.0.10/hook', 'development')).toEqual({
      code: 'webhook_url_address_refused',
      detail: { field: 'url', range: 'private' },
    });
    expect(await refusal('https://169.254.169.254/', 'development')).toEqual({
      code: 'webhook_url_address_refused',
      detail: { field: 'url', range: 'metadata' },
    });
  });
});
