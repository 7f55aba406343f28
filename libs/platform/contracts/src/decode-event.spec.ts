import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { decodeEvent, decodeEventFields } from './decode-event';
import { EventMetaSchema } from './gen/svc/events/v1/meta_pb';
import { ConsentRecordedSchema } from './gen/svc/events/v1/records_pb';

describe('decodeEventFields: only the fields a consumer decides on', () => {
  const recorded = create(ConsentRecordedSchema, {
    meta: create(EventMetaSchema, { eventId: 'e-1', eventType: 'consent.recorded', applicationId: 'app_us_1' }),
    recordId: 'crec_us_1',
    flowId: 'flw_us_1',
    flowVersion: 3,
    outcomes: [{ purpose: 'newsletter', decision: 'granted' }],
    collectionChannel: 'imported',
    recordedAt: timestampFromDate(new Date('2026-01-01T00:00:00.000Z')),
    sendReceipt: true,
    notice: { locale: 'en', title: 'Newsletter', purposes: [{ key: 'newsletter', label: 'News', required: false }] },
  });
  const data = toBinary(ConsentRecordedSchema, recorded);

  it('decodes the named fields exactly as a whole decode does, and nothing else', () => {
    const whole = decodeEvent('consent.recorded', data);
    const part = decodeEventFields('consent.recorded', data, ['meta', 'flowId', 'sendReceipt', 'collectionChannel']);
    expect(part).toEqual({ meta: whole.meta, flowId: 'flw_us_1', sendReceipt: true, collectionChannel: 'imported' });
  });

  it('gives an absent field the value a whole decode gives it', () => {
    const bare = toBinary(ConsentRecordedSchema, create(ConsentRecordedSchema, { flowId: 'flw_us_1' }));
    expect(decodeEventFields('consent.recorded', bare, ['meta', 'recordId', 'sendReceipt'])).toEqual({
      meta: undefined,
      recordId: '',
      sendReceipt: false,
    });
  });

  it('decodes lists and numbers as a whole decode does', () => {
    const whole = decodeEvent('consent.recorded', data);
    expect(decodeEventFields('consent.recorded', data, ['outcomes', 'flowVersion', 'recordedAt', 'flowId'])).toEqual({
      outcomes: whole.outcomes,
      flowVersion: 3,
      recordedAt: whole.recordedAt,
      flowId: 'flw_us_1',
    });
  });

  it('merges a message field sent twice, as protobuf does', () => {
    const second = toBinary(ConsentRecordedSchema, create(ConsentRecordedSchema, { meta: create(EventMetaSchema, { region: 'us' }) }));
    const twice = new Uint8Array([...data, ...second]);
    expect(decodeEventFields('consent.recorded', twice, ['meta']).meta).toEqual(decodeEvent('consent.recorded', twice).meta);
    expect(decodeEventFields('consent.recorded', twice, ['meta']).meta).toMatchObject({ eventId: 'e-1', region: 'us' });
  });

  it('refuses a field with the wrong wire type as a whole decode does', () => {
    // Field 13 (send_receipt, a bool) sent length-delimited.
    const malformed = new Uint8Array([(13 << 3) | 2, 1, 0x41]);
    expect(() => decodeEvent('consent.recorded', malformed)).toThrow();
    expect(() => decodeEventFields('consent.recorded', malformed, ['sendReceipt'])).toThrow();
  });

  it('refuses a field name the event does not have, naming it', () => {
    expect(() => decodeEventFields('consent.recorded', data, ['colour' as 'flowId'])).toThrow(/no field colour/);
  });
});
