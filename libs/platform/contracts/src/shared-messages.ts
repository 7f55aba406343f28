import { toBinary, type DescField, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** Messages many events carry unchanged, with their one encoding once made. */
const encodings = new WeakMap<object, Uint8Array | null>();
/** Per schema, its singular message fields outside a oneof: the ones a shared message can fill. */
const messageFields = new WeakMap<DescMessage, readonly DescField[]>();

/**
 * Marks a message that many events carry unchanged — a flow version's notice, an application's
 * facts — so {@link toBinarySharing} encodes it once and splices its bytes into every event that
 * carries it. A shared message must never change afterwards.
 */
export function sharedMessage<T extends object>(message: T): T {
  if (!encodings.has(message)) encodings.set(message, null);
  return message;
}

function singularMessageFields(schema: DescMessage): readonly DescField[] {
  let fields = messageFields.get(schema);
  if (!fields) messageFields.set(schema, (fields = schema.fields.filter((f) => f.fieldKind === 'message' && !f.oneof)));
  return fields;
}

function encodingOf(field: DescField, message: object): Uint8Array {
  let bytes = encodings.get(message);
  if (!bytes) encodings.set(message, (bytes = toBinary(field.message as DescMessage, message as never)));
  return bytes;
}

/**
 * `toBinary`, except that top-level fields holding a {@link sharedMessage} are written from that
 * message's one encoding, after the other fields. Protobuf parsers accept fields in any order, so
 * the bytes decode to the same message.
 */
export function toBinarySharing<S extends DescMessage>(schema: S, message: MessageShape<S>): Uint8Array {
  const source = message as Record<string, unknown>;
  const shared = singularMessageFields(schema).filter((f) => {
    const value = source[f.localName];
    return typeof value === 'object' && value !== null && encodings.has(value);
  });
  if (shared.length === 0) return toBinary(schema, message);
  const values = shared.map((f) => source[f.localName] as object);
  let head: Uint8Array;
  try {
    for (const field of shared) source[field.localName] = undefined;
    head = toBinary(schema, message);
  } finally {
    shared.forEach((field, i) => (source[field.localName] = values[i]));
  }
  const writer = new BinaryWriter().raw(head);
  shared.forEach((field, i) => writer.tag(field.number, WireType.LengthDelimited).bytes(encodingOf(field, values[i]!)));
  return writer.finish();
}
