import { createHash } from 'node:crypto';
import { isDomainError } from '@svc/errors';
import { canonicalJson, sha256Base64Url, sha256Hex } from './canonical-json';
import vectors from './test-vectors/rfc8785-jcs.json';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isDomainError(error) ? error.code : `non-domain: ${String(error)}`;
  }
  return undefined;
}

function doubleFromHex(hex: string): number {
  return Buffer.from(hex, 'hex').readDoubleBE(0);
}

describe('canonicalJson (RFC 8785 JCS)', () => {
  it('§3.2.2: serialises the primitive example exactly', () => {
    expect(canonicalJson(JSON.parse(vectors.serialization_example.input_json))).toBe(vectors.serialization_example.canonical);
  });

  it('§3.2.3: sorts members by UTF-16 code units, including surrogate pairs and non-ASCII', () => {
    const parsed = JSON.parse(vectors.sorting_example.input_json) as Record<string, string>;
    const canonical = canonicalJson(parsed);
    // JS objects enumerate integer-like keys first, so order is read from the text, not by re-parsing.
    const positions = vectors.sorting_example.value_order.map((value) => canonical.indexOf(`"${value}"`));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(canonical).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('sorts nested members and drops insignificant whitespace', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 2 }], a: 'x' })).toBe('{"a":"x","b":[3,{"a":2,"z":1}]}');
  });

  it.each(vectors.numbers.map((v) => [v.ieee754_hex, v.canonical]))('Appendix B: double 0x%s is written %s', (hex, text) => {
    expect(canonicalJson(doubleFromHex(hex))).toBe(text);
    expect(canonicalJson([doubleFromHex(hex)])).toBe(`[${text}]`);
  });

  it('writes 1e21 as 1e+21 and -0 as 0', () => {
    expect(canonicalJson({ big: 1e21, negZero: -0 })).toBe('{"big":1e+21,"negZero":0}');
  });

  it('escapes only what JSON requires: control characters as \\u00xx lowercase, others literally', () => {
    expect(canonicalJson('\u001f\b\t\n\f\r"\\/é€😀')).toBe('"\\u001f\\b\\t\\n\\f\\r\\"\\\\/é€😀"');
  });

  it.each(vectors.not_representable_hex)('Appendix B: double 0x%s (NaN / Infinity) is refused', (hex) => {
    expect(codeOf(() => canonicalJson({ n: doubleFromHex(hex) }))).toBe('canonical_json_unrepresentable');
  });

  it.each([
    ['undefined at the top level', undefined],
    ['undefined in an array', [1, undefined]],
    ['-Infinity', -Infinity],
    ['a bigint', { n: 10n }],
    ['a nested function', { f: () => 1 }],
    ['a symbol', [Symbol('s')]],
    ['a Map', { m: new Map([['a', 1]]) }],
    ['a lone high surrogate in a string', { s: '\ud800x' }],
    ['a lone low surrogate in a member name', { '\udc00': 1 }],
  ])('refuses %s with canonical_json_unrepresentable', (_label, value) => {
    expect(codeOf(() => canonicalJson(value))).toBe('canonical_json_unrepresentable');
  });

  it('refuses cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(codeOf(() => canonicalJson(cyclic))).toBe('canonical_json_unrepresentable');
  });

  it('omits undefined members, serialises Dates through toJSON, keeps a "__proto__" member', () => {
    const withProto = JSON.parse('{"__proto__":{"x":1},"a":1}') as unknown;
    expect(canonicalJson({ b: undefined, a: new Date('2026-01-01T00:00:00Z') })).toBe('{"a":"2026-01-01T00:00:00.000Z"}');
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"a":1}');
  });

  it('accepts a repeated (non-cyclic) reference', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
  });
});

describe('sha256', () => {
  it('FIPS 180-2 "abc" in hex and base64url, strings hashed as UTF-8', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Base64Url('abc')).toBe(
      Buffer.from('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'hex').toString('base64url'),
    );
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex('abc'));
    expect(sha256Hex('é')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex'),
    );
  });
});
