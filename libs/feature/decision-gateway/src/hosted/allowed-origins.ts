import { Injectable } from '@nestjs/common';
import { ApplicationsRepository } from '../applications/applications.repository';

/**
 * Allowed-origin checks of the browser surfaces (spec, Authentication rule 3): the embed's
 * frame-ancestors, the postMessage target origin, redirect_uri and CORS all answer from
 * `gateway.allowed_origins`.
 */
@Injectable()
export class AllowedOrigins {
  constructor(private readonly applications: ApplicationsRepository) {}

  list(applicationId: string): Promise<string[]> {
    return this.applications.allOrigins(applicationId);
  }

  /** The canonical origin of `candidate` when it is one of `allowed`, else null (malformed included). */
  static match(candidate: unknown, allowed: readonly string[]): string | null {
    if (typeof candidate !== 'string' || candidate.length > 2048) return null;
    let origin: string;
    try {
      origin = new URL(candidate).origin;
    } catch {
      return null;
    }
    // new URL('https://a.example/x').origin drops the path: only a bare origin (or an exact match) counts.
    return allowed.includes(origin) && (candidate === origin || candidate === `${origin}/`) ? origin : null;
  }

  /** redirect_uri: absolute http(s), no credentials, query or fragment, on an allowed origin. */
  static redirectUri(candidate: unknown, allowed: readonly string[]): string | null {
    if (typeof candidate !== 'string' || candidate.length > 2048) return null;
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      return null;
    }
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.username ||
      url.password ||
      url.search ||
      url.hash ||
      candidate.includes('?') ||
      candidate.includes('#')
    ) {
      return null;
    }
    return allowed.includes(url.origin) ? url.href : null;
  }
}
