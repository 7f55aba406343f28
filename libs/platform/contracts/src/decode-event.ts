import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { BinaryReader } from '@bufbuild/protobuf/wire';
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

/** Field numbers of the field names a caller asks for, per schema and (constant) list of names. */
const wantedNumbers = new WeakMap<DescMessage, WeakMap<readonly string[], ReadonlySet<number>>>();

function numbersOf(schema: DescMessage, names: readonly string[]): ReadonlySet<number> {
  let bySchema = wantedNumbers.get(schema);
  if (!bySchema) wantedNumbers.set(schema, (bySchema = new WeakMap()));
  let numbers = bySchema.get(names);
  if (!numbers) {
    numbers = new Set(
      names.map((name) => {
        const field = schema.fields.find((f) => f.localName === name);
        if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
        return field.number;
      }),
    );
    bySchema.set(names, numbers);
  }
  return numbers;
}

/**
 * Decodes only the named top-level fields of an event; the others are skipped unread, so a
 * consumer that decides on a few open fields (whom an event concerns, whether it asks for an
 * email) does not build the rest of it — a record's notice, its application facts. Sealed fields
 * stay empty, as with {@link decodeEvent} without a seal. Pass the names as a constant array.
 */
export function decodeEventFields<T extends EventType, K extends keyof MessageShape<(typeof EVENTS)[T]['schema']> & string>(
  type: T,
  data: Uint8Array,
  names: readonly K[],
): Pick<MessageShape<(typeof EVENTS)[T]['schema']>, K> {
  const schema = EVENTS[type].schema as DescMessage;
  const numbers = numbersOf(schema, names);
  const reader = new BinaryReader(data);
  const pieces: Uint8Array[] = [];
  let size = 0;
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [fieldNo, wireType] = reader.tag();
    reader.skip(wireType, fieldNo);
    if (!numbers.has(fieldNo)) continue;
    pieces.push(data.subarray(start, reader.pos));
    size += reader.pos - start;
  }
  // The wanted fields' own wire bytes, in order, form a message of the same schema with only them set.
  const subset = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    subset.set(piece, offset);
    offset += piece.length;
  }
  return fromBinary(schema, subset) as MessageShape<(typeof EVENTS)[T]['schema']>;
}
