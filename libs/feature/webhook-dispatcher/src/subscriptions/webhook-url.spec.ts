import { DomainError } from '@svc/errors';
import { checkWebhookUrl } from './webhook-url';

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

  it.each(['not a url', '/relative', 'ftp://example.com/x', 'javascript:alert(1)', 'https://user:pass@example.com/', 'https://example.com/#frag'])(
    'refuses %s as webhook_url_invalid',
    (url) => {
      expect(codeOf(() => checkWebhookUrl(url, 'development'))).toBe('webhook_url_invalid');
    },
  );
});
