import { fromBinary } from '@bufbuild/protobuf';
import { EVENTS, type EventType } from './subjects';

/** Decodes an event payload by its type; undefined for a type this build does not know. */
export function decodeEvent<T extends EventType>(type: T, data: Uint8Array): ReturnType<typeof fromBinary<(typeof EVENTS)[T]['schema']>>;
export function decodeEvent(type: string, data: Uint8Array): unknown;
export function decodeEvent(type: string, data: Uint8Array): unknown {
  const spec = (EVENTS as Record<string, { schema: (typeof EVENTS)[EventType]['schema'] } | undefined>)[type];
  return spec ? fromBinary(spec.schema, data) : undefined;
}

/** True when `type` names an event of this build's contracts. */
export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(EVENTS, type);
}
