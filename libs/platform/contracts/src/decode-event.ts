import type { fromBinary } from '@bufbuild/protobuf';
import { decodeSealedEvent, type PersonalDataSeal } from './personal-data';
import { EVENTS, type EventType } from './subjects';

/**
 * Decodes an event payload by its type, opening its sealed personal fields with `personalData`
 * (without it they stay empty); undefined for a type this build does not know.
 */
export function decodeEvent<T extends EventType>(
  type: T,
  data: Uint8Array,
  personalData?: PersonalDataSeal,
): ReturnType<typeof fromBinary<(typeof EVENTS)[T]['schema']>>;
export function decodeEvent(type: string, data: Uint8Array, personalData?: PersonalDataSeal): unknown;
export function decodeEvent(type: string, data: Uint8Array, personalData?: PersonalDataSeal): unknown {
  const spec = (EVENTS as Record<string, { schema: (typeof EVENTS)[EventType]['schema'] } | undefined>)[type];
  return spec ? decodeSealedEvent(spec.schema, data, personalData) : undefined;
}

/** True when `type` names an event of this build's contracts. */
export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(EVENTS, type);
}
