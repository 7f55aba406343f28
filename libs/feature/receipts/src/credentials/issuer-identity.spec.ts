import { didWebOf } from './issuer-identity';

describe('did:web identifier of a base URL (did:web method §3.1)', () => {
  it('is the host, with a port percent-encoded and path segments colon-separated', () => {
    expect(didWebOf('https://us.svc.example')).toBe('did:web:us.svc.example');
    expect(didWebOf('http://127.0.0.1:8081')).toBe('did:web:127.0.0.1%3A8081');
    expect(didWebOf('https://svc.example/regions/eu/')).toBe('did:web:svc.example:regions:eu');
  });
});
