import { DirectorySubjectStatusSchema } from '../gen/svc/events/v1/directory_pb';
import type { EventEntry } from './event-entry';

/**
 * The cross-border directory (consent-records): minimized status of a person, published by the
 * person's home region and consumed by every region. Its subject is the only one other regions read.
 */
export const DIRECTORY_EVENTS = {
  'directory.subject_status': {
    schema: DirectorySubjectStatusSchema,
    version: 1,
    producer: 'consent-records',
    webhook: false,
    audited: false,
    meaning: 'A person’s minimized consent status for an application changed in their home region',
  },
} as const satisfies Record<string, EventEntry>;
