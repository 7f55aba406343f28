import { DomainError } from '@svc/errors';
import { checkJsonShape, JsonShapeGuard } from './json-limits';
import { parseJsonBody, refuseNonUtf8Charset } from './parse-json-body';

function refusal(run: () => unknown): { code: string; detail?: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, detail: error.detail };
    throw error;
  }
  throw new Error('expected a refusal');
}

const parse = (text: string | Buffer): unknown => parseJsonBody(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));
const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth);

describe('parsing a JSON request body', () => {
  it('parses ordinary JSON, keeping non-ASCII text and surrogate pairs', () => {
    expect(parse('{"name":"Zoë 😀","tags":["a"],"n":1.5,"ok":true,"none":null}')).toEqual({
      name: 'Zoë 😀',
      tags: ['a'],
      n: 1.5,
      ok: true,
      none: null,
    });
  });

  it('refuses bytes that are not UTF-8 instead of replacing them with U+FFFD', () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]);
    expect(refusal(() => parse(bytes))).toMatchObject({ code: 'malformed_json' });
  });

  it('refuses malformed and empty text', () => {
    for (const text of ['{', '{"a":1,}', "{'a':1}", '{"a":1} x', '', '  ']) expect(refusal(() => parse(text)).code).toBe('malformed_json');
  });

  it('accepts 32 levels of nesting and refuses 33, whether arrays or objects', () => {
    expect(parse(nested(32))).toBeDefined();
    expect(refusal(() => parse(nested(33)))).toEqual({ code: 'json_too_deep', detail: { limit_depth: 32 } });
    const objects = '{"a":'.repeat(33) + '1' + '}'.repeat(33);
    expect(refusal(() => parse(objects)).code).toBe('json_too_deep');
  });

  it('refuses 2,000- and 300,000-deep bodies without a stack overflow, malformed or not', () => {
    for (const depth of [2_000, 300_000]) {
      expect(refusal(() => parse(`{"receipt":"x","zz":${nested(depth)}}`)).code).toBe('json_too_deep');
      expect(refusal(() => parse('['.repeat(depth))).code).toBe('json_too_deep');
    }
  });

  it('does not count brackets inside strings as nesting', () => {
    expect(parse(JSON.stringify({ text: '[[[[{{{{'.repeat(100), quoted: '\\"[[' }))).toEqual({
      text: '[[[[{{{{'.repeat(100),
      quoted: '\\"[[',
    });
  });

  it('accepts 1,000 members in an object and refuses 1,001', () => {
    const object = (size: number): string => JSON.stringify(Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, ':'])));
    expect(Object.keys(parse(object(1_000)) as object)).toHaveLength(1_000);
    expect(refusal(() => parse(`{"nested":${object(1_001)}}`))).toEqual({
      code: 'json_too_many_members',
      detail: { limit_members: 1_000 },
    });
  });

  it('refuses U+0000 and unpaired surrogates anywhere, naming the field', () => {
    expect(refusal(() => parse('{"name":"a\\u0000b"}')).detail).toMatchObject({ field: 'name' });
    expect(refusal(() => parse('{"subject":{"email":"x\\udc00@example.com"}}')).detail).toMatchObject({ field: 'subject.email' });
    expect(refusal(() => parse('{"purposes":[{"key":"ok"},{"label":"\\ud800"}]}')).detail).toMatchObject({ field: 'purposes.1.label' });
    expect(refusal(() => parse('{"metadata":{"a\\u0000":"x"}}')).detail).toMatchObject({ field: 'metadata' });
    expect(refusal(() => parse('["\\u0000"]')).code).toBe('invalid_request');
    expect(refusal(() => parse('{"name":"a\\u0000b"}')).code).toBe('invalid_request');
  });

  it('refuses prototype-pollution keys', () => {
    expect(refusal(() => parse('{"a":{"__proto__":{"admin":true}}}')).code).toBe('malformed_json');
    expect(refusal(() => parse('{"constructor":{"prototype":{"admin":true}}}')).code).toBe('malformed_json');
    expect(refusal(() => parse('{"a":{"\\u005f_proto__":{"admin":true}}}')).code).toBe('malformed_json');
  });

  it('refuses a declared charset other than UTF-8', () => {
    expect(() => refuseNonUtf8Charset('application/json')).not.toThrow();
    expect(() => refuseNonUtf8Charset('application/json; charset=UTF-8')).not.toThrow();
    expect(refusal(() => refuseNonUtf8Charset('application/json; charset=utf-16')).code).toBe('unsupported_media_type');
  });
});

describe('JsonShapeGuard: the shape checks over a body that arrives in pieces', () => {
  const deep = `{"a":"\\\\\\"[[[[","b":${'['.repeat(32)}${']'.repeat(32)}}`;

  it('refuses what checkJsonShape refuses however the text is cut, escapes split across pieces included', () => {
    expect(() => checkJsonShape(deep)).toThrow(expect.objectContaining({ code: 'json_too_deep' }));
    for (let size = 1; size <= 7; size += 1) {
      const guard = new JsonShapeGuard();
      expect(() => {
        for (let i = 0; i < deep.length; i += size) guard.feed(deep.slice(i, i + size));
      }).toThrow(expect.objectContaining({ code: 'json_too_deep' }));
    }
  });

  it('accepts what checkJsonShape accepts however the text is cut', () => {
    const text = `{"a":"\\\\\\"[[[[","b":${'['.repeat(31)}${']'.repeat(31)}}`;
    expect(() => checkJsonShape(text)).not.toThrow();
    for (let size = 1; size <= 7; size += 1) {
      const guard = new JsonShapeGuard();
      for (let i = 0; i < text.length; i += size) guard.feed(text.slice(i, i + size));
    }
  });
});
