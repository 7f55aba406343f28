import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireScopes, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { IsDefined, IsIn, IsInt, IsObject, IsString, Matches, MaxLength } from 'class-validator';
import { Nullable } from '@svc/server';
import { auditError } from '../audit.errors';
import { AuditEvidencePackages, type StoredEvidencePackage } from '../evidence/audit-evidence-packages';

const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** Body of `POST /api/v1/evidence_packages`: the audit period (`from` inclusive, `to` exclusive, at most 366 days). */
export class EvidencePackagePeriodBody {
  @IsDefined() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'from must be an RFC 3339 date-time with offset' }) from!: string;
  @IsDefined() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'to must be an RFC 3339 date-time with offset' }) to!: string;
}

/** An issued evidence package; `package` is the compact JWS to hand to an auditor. */
export class AuditEvidencePackageResponse {
  @IsIn(['evidence_package']) object!: 'evidence_package';
  @IsString() id!: string;
  @IsIn(['audit_period']) kind!: string;
  /** `{from, to}` of the audit period. */
  @IsObject() period!: object;
  @IsString() kid!: string;
  /** Audit entries the package proves. */
  @IsInt() entries!: number;
  /** The checkpoint the inclusion proofs are against; null when the period holds no entry. */
  @IsInt() @Nullable() checkpoint_sequence!: number | null;
  /** SHA-256 (hex) of the package bytes. */
  @IsString() package_sha256!: string;
  /** The signed package (`typ` `svc-evidence+jws`): verify offline with `svc-audit verify-evidence --package <file>`. */
  @IsString() package!: string;
  @IsString() created_at!: string;
}

function view(stored: StoredEvidencePackage): Record<string, unknown> {
  return {
    object: 'evidence_package',
    id: stored.id,
    kind: 'audit_period',
    period: { from: stored.periodFrom.toISOString(), to: stored.periodTo.toISOString() },
    kid: stored.kid,
    entries: stored.entries,
    checkpoint_sequence: stored.checkpointSequence,
    package_sha256: stored.packageSha256,
    package: stored.package,
    created_at: stored.createdAt.toISOString(),
  } satisfies Record<keyof AuditEvidencePackageResponse, unknown>;
}

/**
 * Comply: signed evidence packages of the application's audit period (receipts, withdrawals,
 * audit inclusion proofs, checkpoints, key history). API token with scope `audit:verify`, as the
 * audit entries they hold; only the token's application's packages.
 */
@Controller('api/v1/evidence_packages')
export class EvidencePackagesController {
  constructor(private readonly packages: AuditEvidencePackages) {}

  @Post()
  @HttpCode(201)
  @RequireScopes('audit:verify')
  @ApiDoc({
    tag: 'Comply',
    summary: 'Issue a signed evidence package for an audit period, verifiable offline',
    errors: [400, 401, 403, 422],
  })
  @ApiResponseOf(AuditEvidencePackageResponse)
  async issue(@CurrentPrincipal() principal: Principal, @Body() body: EvidencePackagePeriodBody): Promise<Record<string, unknown>> {
    return view(await this.packages.issue(principal.applicationId, body.from, body.to));
  }

  @Get()
  @RequireScopes('audit:verify')
  @ApiDoc({ tag: 'Comply', summary: 'Evidence packages issued for the application, oldest first', errors: [400, 401, 403] })
  @ApiResponseOf(AuditEvidencePackageResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['seq']).seq) : 0;
    if (!Number.isSafeInteger(after) || after < 0)
      throw auditError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.packages.list(principal.applicationId, limit + 1, after);
    return toPage(rows, limit, view, (row) => ({ seq: row.seq }));
  }

  @Get(':evidence_package_id')
  @RequireScopes('audit:verify')
  @ApiDoc({ tag: 'Comply', summary: 'One issued evidence package, the same bytes as when issued', errors: [401, 403, 404] })
  @ApiResponseOf(AuditEvidencePackageResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('evidence_package_id') id: string): Promise<Record<string, unknown>> {
    return view(await this.packages.find(principal.applicationId, id));
  }
}
