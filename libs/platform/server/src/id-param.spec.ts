import { newRegionalId } from '@svc/ids';
import { IdPipe } from './id-param';

describe('IdPipe (path ids checked against the identifier registry)', () => {
  const pipe = new IdPipe('authority');
  const metadata = { type: 'param' as const, data: 'authority_id' };

  it('passes a well-formed id of its kind through unchanged', () => {
    const id = newRegionalId('authority', 'eu');
    expect(pipe.transform(id, metadata)).toBe(id);
  });

  it.each([['auth_us_x'], [newRegionalId('agent', 'us')], ['auth_us_aaaaaaaaaaaaaaaaaaa\u0000'], [undefined]])(
    'refuses %j with 422 validation_failed naming the parameter',
    (value) => {
      expect(() => pipe.transform(value, metadata)).toThrow(
        expect.objectContaining({
          kind: 'unprocessable',
          code: 'validation_failed',
          message: 'authority_id must be a well-formed authority id (auth_<region>_…)',
          detail: expect.objectContaining({ field: 'authority_id' }),
        }),
      );
    },
  );

  it('exposes the pattern the OpenAPI document shows', () => {
    expect(pipe.pattern).toBe('^auth_(us|eu|ap|dev)_[a-z2-7]{20}$');
  });
});
