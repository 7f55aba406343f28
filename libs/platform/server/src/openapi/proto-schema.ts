import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';

type Json = Record<string, unknown>;

/** Well-known messages and how their JSON form looks (protobuf's canonical JSON mapping). */
const WELL_KNOWN: Record<string, Json> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?s$' },
  'google.protobuf.Struct': { type: 'object', additionalProperties: true },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array', items: {} },
  'google.protobuf.StringValue': { type: ['string', 'null'] },
  'google.protobuf.BoolValue': { type: ['boolean', 'null'] },
  'google.protobuf.Int64Value': { type: ['string', 'null'] },
  'google.protobuf.Int32Value': { type: ['integer', 'null'] },
};

function scalarSchema(scalar: ScalarType): Json {
  switch (scalar) {
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
    case ScalarType.SINT64:
      // 64-bit integers are strings in protobuf JSON.
      return { type: 'string', pattern: '^-?[0-9]+$' };
    case ScalarType.INT32:
    case ScalarType.UINT32:
    case ScalarType.SINT32:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return { type: 'integer' };
  }
}

/** The JSON names protobuf's `toJson` writes for an enum's values. */
function enumSchema(desc: DescEnum): Json {
  return { type: 'string', enum: desc.values.map((v) => v.name) };
}

/** Schema names of messages: `svc.records.v1.ConsentRecorded` → `ProtoSvcRecordsV1ConsentRecorded`. */
export function protoSchemaName(desc: DescMessage): string {
  return `Proto${desc.typeName
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

/**
 * JSON schemas of a protobuf message as `toJson(…, {useProtoFieldName: true, alwaysEmitImplicit: true})`
 * writes it: proto field names, 64-bit integers and bytes as strings, enums by name, well-known
 * types in their JSON form. Returns the message's schema and every nested message's, by name;
 * `omit` names top-level fields the JSON never carries.
 */
export function protoMessageSchemas(root: DescMessage, omit: readonly string[] = []): { name: string; schemas: Record<string, Json> } {
  const schemas: Record<string, Json> = {};
  const refTo = (desc: DescMessage): Json => {
    const known = WELL_KNOWN[desc.typeName];
    if (known) return known;
    const name = protoSchemaName(desc);
    if (!schemas[name]) {
      schemas[name] = {};
      schemas[name] = messageSchema(desc, desc === root ? omit : []);
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  const single = (field: DescField): Json => {
    if (field.fieldKind === 'scalar') return scalarSchema(field.scalar);
    if (field.fieldKind === 'enum') return enumSchema(field.enum);
    if (field.fieldKind === 'message') return refTo(field.message);
    if (field.fieldKind === 'list') {
      const item =
        field.listKind === 'scalar'
          ? scalarSchema(field.scalar)
          : field.listKind === 'enum'
            ? enumSchema(field.enum)
            : refTo(field.message);
      return { type: 'array', items: item };
    }
    const value =
      field.mapKind === 'scalar' ? scalarSchema(field.scalar) : field.mapKind === 'enum' ? enumSchema(field.enum) : refTo(field.message);
    return { type: 'object', additionalProperties: value };
  };
  const messageSchema = (desc: DescMessage, omitted: readonly string[]): Json => {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const field of desc.fields) {
      if (omitted.includes(field.name)) continue;
      const schema = single(field);
      // A message field, or a member of a oneof, or an explicit `optional`, may be absent; implicit scalars always appear.
      const mayBeAbsent = field.fieldKind === 'message' || field.oneof !== undefined || field.proto.proto3Optional === true;
      properties[field.name] = schema;
      if (!mayBeAbsent) required.push(field.name);
    }
    return { type: 'object', ...(required.length ? { required } : {}), properties, additionalProperties: true };
  };
  refTo(root);
  return { name: protoSchemaName(root), schemas };
}
