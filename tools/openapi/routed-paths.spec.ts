import { readFileSync } from 'node:fs';
import { serviceForPath } from '@svc/residency-router';
import { OPENAPI_DOCUMENT_PATH } from './document-path';

/** Answered by every process itself (and by the router for its own), never forwarded. */
const PER_PROCESS = ['/healthz', '/readyz', '/metrics'];

describe('published OpenAPI document and the region router', () => {
  it('gives every documented path a service the router forwards it to (a path without one answers 404 in the distributed deployment)', () => {
    const document = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as { paths: Record<string, unknown> };
    const unrouted = Object.keys(document.paths)
      .filter((path) => !PER_PROCESS.includes(path))
      .filter((path) => serviceForPath(path.replace(/\{[^}]+\}/g, 'x')) === undefined);
    expect(unrouted).toEqual([]);
  });
});
