import { sqlWithoutLiterals, urlAttributesWithoutQuery } from './instrumentations';

describe('what pg and undici spans may carry', () => {
  it('replaces string, escaped, dollar-quoted and numeric literals of SQL text by ?', () => {
    expect(sqlWithoutLiterals(`SELECT unnest('{"a@example.com"}'::text[]) AS k, E'\\\\x0a8a''b' FROM t WHERE n = 42 AND f = -1.5e3`)).toBe(
      'SELECT unnest(?::text[]) AS k, ? FROM t WHERE n = ? AND f = ?',
    );
    expect(sqlWithoutLiterals(`DO $body$ BEGIN PERFORM 'x'; END $body$; SELECT $$secret$$`)).toBe('DO ?; SELECT ?');
  });

  it('keeps placeholders, identifiers with digits and quoted identifiers', () => {
    const text = 'SELECT t1.id, "col2" FROM "consent_records".outbox o2 WHERE id = ANY($1::uuid[]) AND attempts < $12 LIMIT $3';
    expect(sqlWithoutLiterals(text)).toBe(text);
  });

  it('drops the query string (and credentials) of an outbound URL', () => {
    expect(urlAttributesWithoutQuery({ origin: 'https://user:pw@hooks.example.com', path: '/in?token=abc#x' })).toEqual({
      'url.full': 'https://hooks.example.com/in',
      'url.query': undefined,
    });
    expect(urlAttributesWithoutQuery({ origin: 'not a url', path: '/?a=1' })).toEqual({ 'url.full': undefined, 'url.query': undefined });
  });
});
