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

  it('decodes the named fields exactly as a whole decode does, and leaves every other field unset', () => {
    const whole = decodeEvent('consent.recorded', data);
    const part = decodeEventFields('consent.recorded', data, ['meta', 'flowId', 'sendReceipt', 'collectionChannel']);
    expect(part).toMatchObject({
      meta: whole.meta,
      flowId: whole.flowId,
      sendReceipt: true,
      collectionChannel: 'imported',
      recordId: '',
      flowVersion: 0,
      outcomes: [],
    });
    expect((part as typeof whole).notice).toBeUndefined();
    expect((part as typeof whole).recordedAt).toBeUndefined();
  });

  it('refuses a field name the event does not have, naming it', () => {
    expect(() => decodeEventFields('consent.recorded', data, ['colour' as 'flowId'])).toThrow(/no field colour/);
  });
});
