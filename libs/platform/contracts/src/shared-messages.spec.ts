import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ConsentRecordedSchema, FlowNoticeSchema } from './gen/svc/events/v1/records_pb';
import { sharedMessage, toBinarySharing } from './shared-messages';

describe('toBinarySharing: a message many events carry is encoded once', () => {
  const notice = sharedMessage(
    create(FlowNoticeSchema, { locale: 'en', title: 'News', purposes: [{ key: 'newsletter', label: 'Newsletter', required: false }] }),
  );
  const event = (recordId: string) =>
    create(ConsentRecordedSchema, { recordId, flowId: 'flw_us_1', outcomes: [{ purpose: 'newsletter', decision: 'granted' }], notice });

  it('decodes to the same message as a plain encoding, for every event that shares it', () => {
    for (const recordId of ['crec_us_1', 'crec_us_2']) {
      const message = event(recordId);
      const decoded = fromBinary(ConsentRecordedSchema, toBinarySharing(ConsentRecordedSchema, message));
      expect(equals(ConsentRecordedSchema, decoded, fromBinary(ConsentRecordedSchema, toBinary(ConsentRecordedSchema, message)))).toBe(
        true,
      );
      expect(decoded.notice?.purposes[0]?.label).toBe('Newsletter');
      // The message keeps its shared field after encoding.
      expect(message.notice).toBe(notice);
    }
  });

  it('encodes a message without shared fields exactly as toBinary does', () => {
    const plain = create(ConsentRecordedSchema, { recordId: 'crec_us_3', notice: { title: 'Own' } });
    expect(toBinarySharing(ConsentRecordedSchema, plain)).toEqual(toBinary(ConsentRecordedSchema, plain));
  });
});
