import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import {
  clearField,
  create,
  fromBinary,
  getOption,
  isFieldSet,
  toBinary,
  type DescField,
  type DescMessage,
  type MessageShape,
} from '@bufbuild/protobuf';
import { PersonalData, personal_data } from './gen/svc/options/v1/personal_data_pb';
import { pooledRandomBytes } from './random-pool';
import { toBinarySharing } from './shared-messages';

/** The bytes field of an event message that carries its sealed fields. */
export const SEALED_PERSONAL_DATA_FIELD = 'sealed_personal_data';

const ENVELOPE_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = 'svc/bus-personal-data/v1/';

/** How a field is declared (`svc.options.v1.personal_data`); unspecified when it carries no option. */
export function personalDataOf(field: DescField): PersonalData {
  return getOption(field, personal_data);
}

const sealedFieldCache = new WeakMap<DescMessage, readonly DescField[]>();

/** Fields of `schema` declared `PERSONAL_DATA_SEALED`. */
export function sealedFieldsOf(schema: DescMessage): readonly DescField[] {
  let fields = sealedFieldCache.get(schema);
  if (!fields) {
    fields = schema.fields.filter((f) => personalDataOf(f) === PersonalData.SEALED);
    sealedFieldCache.set(schema, fields);
  }
  return fields;
}

function sealedBytesField(schema: DescMessage): DescField {
  const field = schema.fields.find((f) => f.name === SEALED_PERSONAL_DATA_FIELD);
  if (!field) throw new Error(`${schema.typeName} declares sealed fields but no ${SEALED_PERSONAL_DATA_FIELD}`);
  return field;
}

interface EventHeader {
  meta?: { eventId: string; eventType: string; region: string };
}

/** Additional data of a sealed envelope: a ciphertext opens only on the event it was made for. */
function additionalData(message: EventHeader): Buffer {
  const meta = message.meta;
  return Buffer.from(`${KEY_INFO}${meta?.eventType ?? ''}\n${meta?.eventId ?? ''}\n${meta?.region ?? ''}`, 'utf8');
}

/**
 * Authenticated encryption of an event's personal fields for the bus. The key is derived (HKDF-SHA256)
 * from the region's key-encryption key and the region, so it never leaves the region's processes
 * and one region's key opens nothing of another's. Envelope: `version (1) | IV (12) | ciphertext |
 * GCM tag (16)`; the plaintext is the event message holding only its sealed fields.
 */
export class PersonalDataSeal {
  private constructor(private readonly key: Buffer) {}

  /** The bus key of `region` under the key-encryption key `kekBase64` (base64 of 32 bytes). */
  static fromKeyEncryptionKey(kekBase64: string, region: string): PersonalDataSeal {
    const kek = Buffer.from(kekBase64, 'base64');
    if (kek.length !== 32) throw new Error('The key-encryption key must be 32 bytes');
    return new PersonalDataSeal(Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), KEY_INFO + region, 32)));
  }

  seal(plaintext: Uint8Array, message: EventHeader): Uint8Array {
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([Buffer.of(ENVELOPE_VERSION), additionalData(message)]));
    return Buffer.concat([Buffer.of(ENVELOPE_VERSION), iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  /** Throws when the envelope is not this region's, not this event's, or was altered. */
  open(envelope: Uint8Array, message: EventHeader): Uint8Array {
    const blob = Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength);
    if (blob.length < 1 + IV_BYTES + TAG_BYTES || blob[0] !== ENVELOPE_VERSION) throw new Error('Sealed personal data is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, blob.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.concat([Buffer.of(ENVELOPE_VERSION), additionalData(message)]));
    decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(blob.subarray(1 + IV_BYTES, blob.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new Error('Sealed personal data does not open with this region key');
    }
  }
}

/**
 * Encodes an event for the bus: its sealed fields are moved into `sealed_personal_data`, so none
 * travels in clear. Without a seal, an event whose sealed fields are all empty still encodes; one
 * carrying personal data throws rather than publish it in clear.
 */
export function encodeEvent<S extends DescMessage>(schema: S, message: MessageShape<S>, seal: PersonalDataSeal | undefined): Uint8Array {
  const fields = sealedFieldsOf(schema);
  const carried = fields.filter((f) => isFieldSet(message, f));
  if (carried.length === 0) return toBinarySharing(schema, message);
  if (!seal) throw new Error(`${schema.typeName} carries personal data and no bus key is configured to seal it`);
  // The sealed fields alone form the plaintext; the message is encoded without them, then restored.
  const source = message as Record<string, unknown>;
  const personal = create(schema) as Record<string, unknown>;
  for (const field of carried) personal[field.localName] = source[field.localName];
  const sealedField = sealedBytesField(schema);
  const envelope = seal.seal(toBinary(schema, personal as MessageShape<S>), message as EventHeader);
  try {
    for (const field of carried) clearField(message, field);
    source[sealedField.localName] = envelope;
    return toBinarySharing(schema, message);
  } finally {
    for (const field of carried) source[field.localName] = personal[field.localName];
    clearField(message, sealedField);
  }
}

/**
 * Decodes an event and opens its sealed fields. Without a seal, the event decodes with its sealed
 * fields empty (consumers that need none of them need no key); with one, a sealed envelope that
 * does not open throws.
 */
export function decodeSealedEvent<S extends DescMessage>(schema: S, data: Uint8Array, seal: PersonalDataSeal | undefined): MessageShape<S> {
  return openSealedFields(schema, fromBinary(schema, data), seal);
}

/**
 * Opens the sealed fields of an event decoded without a seal, in place: for a consumer that reads
 * the open fields first and unseals only the events it acts on.
 */
export function openSealedFields<S extends DescMessage>(
  schema: S,
  message: MessageShape<S>,
  seal: PersonalDataSeal | undefined,
): MessageShape<S> {
  const fields = sealedFieldsOf(schema);
  if (fields.length === 0 || !seal) return message;
  const sealedField = sealedBytesField(schema);
  const target = message as Record<string, unknown>;
  const envelope = target[sealedField.localName] as Uint8Array;
  if (envelope.length === 0) return message;
  const personal = fromBinary(schema, seal.open(envelope, message as EventHeader)) as Record<string, unknown>;
  for (const field of fields) target[field.localName] = personal[field.localName];
  clearField(message, sealedField);
  return message;
}
