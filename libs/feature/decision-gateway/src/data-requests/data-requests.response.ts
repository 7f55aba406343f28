import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import {
  DATA_REQUEST_KINDS,
  DATA_REQUEST_STATUSES,
  isOverdue,
  type DataRequest,
  type DataRequestKind,
  type DataRequestStatus,
} from './data-request';

/** One part of an export and its digest. */
export class ExportPartResponse {
  /** The service and data set, e.g. `decision-gateway/person`, `consent-records/consent_records`. */
  @IsString() name!: string;
  /** SHA-256 (hex) of the part's RFC 8785 canonical JSON. */
  @IsString() sha256!: string;
  /** Number of items in the part. */
  @IsInt() items!: number;
}

/** The access or portability export of a completed request: a link that expires. */
export class DataRequestExportResponse {
  /** Download link (the token in it is the capability; single use not required, 7 days). */
  @IsString() url!: string;
  @IsString() expires_at!: string;
  @IsIn(['application/json']) media_type!: 'application/json';
  /** SHA-256 (hex) of the canonical JSON of the whole export. */
  @IsString() sha256!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => ExportPartResponse) parts!: ExportPartResponse[];
}

/** A data subject request as its application or its person reads it. */
export class DataRequestResponse {
  /** `dsr_<region>_…` */
  @IsString() id!: string;
  @IsIn(['data_request']) object!: 'data_request';
  @IsString() application_id!: string;
  /** The person (`usr_…`) the request is about. */
  @IsString() person_id!: string;
  @IsIn([...DATA_REQUEST_KINDS]) kind!: DataRequestKind;
  /** received → in_progress → completed | rejected. */
  @IsIn([...DATA_REQUEST_STATUSES]) status!: DataRequestStatus;
  /** `person` (their own access token) or `application` (API token, for a linked person). */
  @IsIn(['person', 'application']) raised_by!: 'person' | 'application';
  /** The purposes an objection or restriction names; empty for other kinds. */
  @IsArray() @IsString({ each: true }) purposes!: string[];
  @IsString() received_at!: string;
  /** The legal deadline: 30 days after receipt, later once extended. */
  @IsString() due_at!: string;
  /** Open and past `due_at`. */
  @IsBoolean() overdue!: boolean;
  @IsBoolean() extended!: boolean;
  @IsString() @Nullable() extended_at!: string | null;
  @IsString() @Nullable() extension_reason!: string | null;
  @IsString() @Nullable() started_at!: string | null;
  @IsString() @Nullable() completed_at!: string | null;
  @IsString() @Nullable() rejected_at!: string | null;
  @IsString() @Nullable() rejection_reason!: string | null;
  /** What the fulfilment did (counts per service); `{}` until completed. */
  @IsObject() result!: object;
  /** Access and portability, once completed: the download link and its manifest; null otherwise or once expired. */
  @Nullable() @ValidateNested() @Type(() => DataRequestExportResponse) export!: DataRequestExportResponse | null;
  @IsString() updated_at!: string;
}

/** The view of a request; `exportView` when an unexpired export exists. */
export function dataRequestView(r: DataRequest, now: Date, exportView: DataRequestExportResponse | null = null): DataRequestResponse {
  return {
    id: r.id,
    object: 'data_request',
    application_id: r.applicationId,
    person_id: r.personId,
    kind: r.kind,
    status: r.status,
    raised_by: r.raisedBy,
    purposes: r.purposes,
    received_at: r.receivedAt.toISOString(),
    due_at: r.dueAt.toISOString(),
    overdue: isOverdue(r, now),
    extended: r.extendedAt !== null,
    extended_at: r.extendedAt?.toISOString() ?? null,
    extension_reason: r.extensionReason,
    started_at: r.startedAt?.toISOString() ?? null,
    completed_at: r.completedAt?.toISOString() ?? null,
    rejected_at: r.rejectedAt?.toISOString() ?? null,
    rejection_reason: r.rejectionReason,
    result: r.result,
    export: exportView,
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The export manifest: one SHA-256 per part. */
export class ExportManifestResponse {
  @IsIn(['sha256']) algorithm!: 'sha256';
  @IsIn(['RFC 8785']) canonicalization!: 'RFC 8785';
  @IsArray() @ValidateNested({ each: true }) @Type(() => ExportPartResponse) parts!: ExportPartResponse[];
}

/** The downloaded export: machine-readable JSON, every part keyed by its manifest name. */
export class DataRequestExportDocumentResponse {
  @IsIn(['data_request_export']) object!: 'data_request_export';
  @IsString() data_request_id!: string;
  @IsString() person_id!: string;
  @IsString() application_id!: string;
  @IsIn(['access', 'portability']) kind!: string;
  @IsString() generated_at!: string;
  @ValidateNested() @Type(() => ExportManifestResponse) manifest!: ExportManifestResponse;
  /** Each part's items, keyed by the part's name. */
  @IsObject() parts!: object;
}
