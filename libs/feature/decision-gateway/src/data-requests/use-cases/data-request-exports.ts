import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { KeyEncryption, canonicalJson, sha256Hex } from '@svc/crypto';
import type { EntityManager } from 'typeorm';
import type { DataRequest } from '../data-request';
import { dataRequestError } from '../data-requests.errors';
import { DataRequestsRepository } from '../data-requests.repository';
import type { DataRequestExportResponse, ExportPartResponse } from '../data-requests.response';

/** How long a download link works. */
export const EXPORT_TTL_MS = 7 * 86_400_000;

/** One service's contribution: a named data set and its items. */
export interface ExportPart {
  name: string;
  items: unknown[];
}

/** The export document, as downloaded. */
export interface ExportDocument {
  object: 'data_request_export';
  data_request_id: string;
  person_id: string;
  application_id: string;
  kind: string;
  generated_at: string;
  manifest: { algorithm: 'sha256'; canonicalization: 'RFC 8785'; parts: ExportPartResponse[] };
  parts: Record<string, unknown[]>;
}

/**
 * Access and portability exports: the parts every service contributed, one machine-readable JSON
 * document with a manifest of SHA-256 digests (each part's RFC 8785 canonical JSON), sealed under
 * the key-encryption key (AAD: the request id) and served behind a link whose random token is
 * stored as SHA-256 (and sealed, so the request's readers see the link) for 7 days.
 */
@Injectable()
export class DataRequestExports {
  constructor(
    private readonly requests: DataRequestsRepository,
    private readonly kek: KeyEncryption,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  /** Builds and stores the export of `request`; returns what the request's result records. */
  async store(manager: EntityManager, request: DataRequest, parts: ExportPart[], now: Date): Promise<Record<string, unknown>> {
    const manifestParts = parts.map((p) => ({ name: p.name, sha256: sha256Hex(canonicalJson(p.items)), items: p.items.length }));
    const document: ExportDocument = {
      object: 'data_request_export',
      data_request_id: request.id,
      person_id: request.personId,
      application_id: request.applicationId,
      kind: request.kind,
      generated_at: now.toISOString(),
      manifest: { algorithm: 'sha256', canonicalization: 'RFC 8785', parts: manifestParts },
      parts: Object.fromEntries(parts.map((p) => [p.name, p.items])),
    };
    const body = Buffer.from(JSON.stringify(document), 'utf8');
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + EXPORT_TTL_MS);
    await this.requests.insertExport(manager, {
      dataRequestId: request.id,
      personId: request.personId,
      tokenSha256: sha256Hex(token),
      tokenSealed: this.kek.encrypt(Buffer.from(token, 'utf8'), `data-request-export-token:${request.id}`),
      manifest: { sha256: sha256Hex(canonicalJson(document)), parts: manifestParts },
      bodySealed: this.kek.encrypt(body, `data-request-export:${request.id}`),
      createdAt: now,
      expiresAt,
    });
    return { export: { parts: manifestParts.map((p) => ({ name: p.name, items: p.items })), expires_at: expiresAt.toISOString() } };
  }

  /** The link and manifest of the request's unexpired export, or null. */
  async view(request: DataRequest, now: Date): Promise<DataRequestExportResponse | null> {
    if (request.status !== 'completed' || (request.kind !== 'access' && request.kind !== 'portability')) return null;
    const stored = await this.requests.findExport(request.id, now);
    if (!stored) return null;
    const token = this.kek.decrypt(stored.tokenSealed, `data-request-export-token:${request.id}`).toString('utf8');
    const manifest = stored.manifest as { sha256: string; parts: ExportPartResponse[] };
    return {
      url: `${this.config.publicBaseUrl}/api/v1/data_requests/${request.id}/export?token=${token}`,
      expires_at: stored.expiresAt.toISOString(),
      media_type: 'application/json',
      sha256: manifest.sha256,
      parts: manifest.parts,
    };
  }

  /** The export behind a link; 404 once expired, erased, or for a wrong token. */
  async download(dataRequestId: string, token: string): Promise<ExportDocument> {
    const stored = await this.requests.findExport(dataRequestId.slice(0, 200), this.clock.now(), sha256Hex(token));
    if (!stored) throw dataRequestError('data_request_export_not_found', 'No such export, or its link expired');
    return JSON.parse(
      this.kek.decrypt(stored.bodySealed, `data-request-export:${stored.dataRequestId}`).toString('utf8'),
    ) as ExportDocument;
  }
}
