import { commonError } from '@svc/errors';
import { mapError, payloadTooLarge } from './http-error-filter';

/** Shaped like the errors of the Postgres client: a message and a SQLSTATE code. */
function postgresError(code: string): Error {
  return Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code, severity: 'ERROR' });
}

describe('mapping errors to HTTP', () => {
  it('answers a Postgres data exception (SQLSTATE class 22) with 400, never 500', () => {
    for (const code of ['22021', '22P05', '22P02', '22003']) {
      expect(mapError(postgresError(code), 'req-1')).toEqual({
        status: 400,
        envelope: { message: 'A value of the request cannot be stored', reason_code: 'invalid_request' },
      });
    }
  });

  it('keeps other database failures a 500 with only a correlation id', () => {
    expect(mapError(postgresError('08P01'), 'req-2')).toEqual({
      status: 500,
      envelope: { message: 'Internal error', reason_code: 'internal_error', detail: { correlation_id: 'req-2' } },
    });
  });

  it('answers 503 service_unavailable when the database or the bus went away mid-request, however it is wrapped', () => {
    const unavailable = {
      status: 503,
      envelope: { message: 'A dependency of the service is unavailable; retry later', reason_code: 'service_unavailable' },
    };
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(mapError(reset, 'r')).toEqual(unavailable);
    expect(mapError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'r')).toEqual(unavailable);
    expect(mapError(new Error('Connection terminated unexpectedly'), 'r')).toEqual(unavailable);
    expect(mapError(new Error('timeout exceeded when trying to connect'), 'r')).toEqual(unavailable);
    for (const code of ['08006', '08001', '57P01', '57P03', '53300']) expect(mapError(postgresError(code), 'r')).toEqual(unavailable);
    // TypeORM's QueryFailedError keeps the driver's error; others keep a cause.
    expect(mapError(Object.assign(new Error('query failed'), { driverError: reset }), 'r')).toEqual(unavailable);
    expect(mapError(new Error('outer', { cause: reset }), 'r')).toEqual(unavailable);
    // Not from this realm's Error (Node's socket errors can come from another one).
    expect(mapError({ code: 'ECONNRESET', message: 'read ECONNRESET' }, 'r')).toEqual(unavailable);
  });

  it('answers an oversized body 413 and an unsupported media type 415, keeping their codes', () => {
    expect(mapError(payloadTooLarge(), 'r')).toMatchObject({ status: 413, envelope: { reason_code: 'payload_too_large' } });
    expect(mapError(commonError('unsupported_media_type', 'no'), 'r')).toMatchObject({
      status: 415,
      envelope: { reason_code: 'unsupported_media_type' },
    });
    expect(mapError(Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }), 'r')).toMatchObject({
      status: 413,
    });
  });
});
