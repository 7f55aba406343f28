import { ScalarType, fromBinary, type DescField, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
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

/**
 * How the wanted fields of a schema are read: each by its field number. `direct` when every one is
 * a string, a bool or a singular message (what consumers decide on: whom an event concerns, whether
 * it asks for an email), read straight off the wire; otherwise they are decoded as a message.
 */
interface WantedFields {
  byNumber: ReadonlyMap<number, DescField>;
  direct: boolean;
}

/** Per schema and (constant) list of names. */
const wantedFields = new WeakMap<DescMessage, WeakMap<readonly string[], WantedFields>>();

function readsDirectly(field: DescField): boolean {
  if (field.fieldKind === 'scalar') return field.scalar === ScalarType.STRING || field.scalar === ScalarType.BOOL;
  // Well-known wrappers decode to plain values, not messages: they take the general path.
  return field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.');
}

function wantedFieldsOf(schema: DescMessage, names: readonly string[]): WantedFields {
  let bySchema = wantedFields.get(schema);
  if (!bySchema) wantedFields.set(schema, (bySchema = new WeakMap()));
  let wanted = bySchema.get(names);
  if (!wanted) {
    const fields = names.map((name) => {
      const field = schema.fields.find((f) => f.localName === name);
      if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
      return field;
    });
    wanted = { byNumber: new Map(fields.map((field) => [field.number, field])), direct: fields.every(readsDirectly) };
    bySchema.set(names, wanted);
  }
  return wanted;
}

/**
 * Decodes only the named top-level fields of an event; the others are skipped unread, so a
 * consumer that decides on a few open fields (whom an event concerns, whether it asks for an
 * email) does not build the rest of it — a record's notice, its application facts. The result
 * holds the named fields only, each as a whole decode gives it. Sealed fields stay empty, as with
 * {@link decodeEvent} without a seal. Pass the names as a constant array.
 */
export function decodeEventFields<T extends EventType, K extends keyof MessageShape<(typeof EVENTS)[T]['schema']> & string>(
  type: T,
  data: Uint8Array,
  names: readonly K[],
): Pick<MessageShape<(typeof EVENTS)[T]['schema']>, K> {
  const schema = EVENTS[type].schema as DescMessage;
  const wanted = wantedFieldsOf(schema, names);
  const picked = (wanted.direct ? readDirectly(wanted, data) : undefined) ?? readAsMessage(schema, wanted, data, names);
  return picked as Pick<MessageShape<(typeof EVENTS)[T]['schema']>, K>;
}

/**
 * Strings and bools read as they are, a message field decoded from its bytes (several occurrences
 * merge, as protobuf says); undefined when a field comes with an unexpected wire type, which the
 * general path then reports as a whole decode would.
 */
function readDirectly(wanted: WantedFields, data: Uint8Array): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const messageParts = new Map<DescField, Uint8Array[]>();
  for (const field of wanted.byNumber.values())
    out[field.localName] = field.fieldKind === 'scalar' ? (field.scalar === ScalarType.BOOL ? false : '') : undefined;
  const reader = new BinaryReader(data);
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    const field = wanted.byNumber.get(fieldNo);
    if (!field) {
      reader.skip(wireType, fieldNo);
      continue;
    }
    if (field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL) {
      if (wireType !== WireType.Varint) return undefined;
      out[field.localName] = reader.bool();
    } else {
      if (wireType !== WireType.LengthDelimited) return undefined;
      if (field.fieldKind === 'message') {
        const parts = messageParts.get(field) ?? [];
        parts.push(reader.bytes());
        messageParts.set(field, parts);
      } else {
        out[field.localName] = reader.string();
      }
    }
  }
  for (const [field, parts] of messageParts) {
    if (field.fieldKind === 'message') out[field.localName] = fromBinary(field.message, concatenated(parts));
  }
  return out;
}

/** The wanted fields' own wire bytes, in order, form a message of the same schema with only them set. */
function readAsMessage(schema: DescMessage, wanted: WantedFields, data: Uint8Array, names: readonly string[]): Record<string, unknown> {
  const reader = new BinaryReader(data);
  const pieces: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [fieldNo, wireType] = reader.tag();
    reader.skip(wireType, fieldNo);
    if (wanted.byNumber.has(fieldNo)) pieces.push(data.subarray(start, reader.pos));
  }
  const whole = fromBinary(schema, concatenated(pieces)) as Record<string, unknown>;
  return Object.fromEntries(names.map((name) => [name, whole[name]]));
}

function concatenated(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
