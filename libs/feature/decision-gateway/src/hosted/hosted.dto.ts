import { IsDefined, IsIn, IsInt, IsString, Max, Min } from 'class-validator';

/** Body of POST /decisions/:session_token/postmessage_drops (the frame's drop report). */
export class DropReportBody {
  @IsDefined()
  @IsString()
  @IsIn(['origin_missing'])
  reason!: 'origin_missing';

  /** Messages dropped since the last report (1–100; the frame batches). */
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(100)
  count!: number;
}
