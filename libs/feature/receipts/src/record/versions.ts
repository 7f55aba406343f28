/** The schema version every document carries in `record.schema_version`. */
export const RECEIPT_SCHEMA_VERSION = 'svc-cr/2.13';

/** What every document states in `record.conforms_to`. */
export const RECEIPT_CONFORMS_TO = 'ISO/IEC TS 27560:2023';
