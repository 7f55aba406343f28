import { DomainError } from '@svc/errors';
import { parseInboundPost } from './inbound-webhook';
import { checkApiBaseUrl, subscriberHash } from './mailing-audience';
import { memberWrite } from './member-write';

describe('mailing-audience rules', () => {
  describe('memberWrite', () => {
    const permissions = [
      { purpose: 'newsletter', marketing_permission_id: 'p1' },
      { purpose: 'offers', marketing_permission_id: 'p2' },
    ];
    const tags = [
      { purpose: 'newsletter', granted: ['news'], declined: ['no-news'] },
      { purpose: 'offers', granted: ['marketing'], declined: [] },
    ];

    it('writes only the purposes the event settles: granted enables, declined or withdrawn disables', () => {
      const write = memberWrite(new Map([['offers', 'declined']]), permissions, tags);
      expect(write).toEqual({
        permissions: [{ marketing_permission_id: 'p2', enabled: false }],
        tags: [{ name: 'marketing', status: 'inactive' }],
      });
    });

    it('lets a tag wanted active by one purpose win over the same tag made inactive by another', () => {
      const shared = [
        { purpose: 'newsletter', granted: ['marketing'], declined: [] },
        { purpose: 'offers', granted: ['marketing'], declined: [] },
      ];
      const write = memberWrite(
        new Map([
          ['newsletter', 'granted'],
          ['offers', 'declined'],
        ]),
        permissions,
        shared,
      );
      expect(write.tags).toEqual([{ name: 'marketing', status: 'active' }]);
    });

    it('writes nothing for purposes the integration does not map', () => {
      expect(memberWrite(new Map([['account', 'granted']]), permissions, tags)).toEqual({ permissions: [], tags: [] });
    });
  });

  describe('checkApiBaseUrl', () => {
    it('accepts https, and plain http only on loopback for development applications', () => {
      expect(checkApiBaseUrl('https://us21.api.mailchimp.com/3.0/', 'production')).toBe('https://us21.api.mailchimp.com/3.0');
      expect(checkApiBaseUrl('http://127.0.0.1:4010/3.0', 'development')).toBe('http://127.0.0.1:4010/3.0');
      for (const [raw, env] of [
        ['http://127.0.0.1:4010/3.0', 'production'],
        ['http://mail.example.com/3.0', 'development'],
        ['https://key:x@mail.example.com/3.0', 'production'],
        ['https://mail.example.com/3.0?apikey=x', 'production'],
        ['ftp://mail.example.com', 'development'],
      ] as const) {
        expect(() => checkApiBaseUrl(raw, env)).toThrow(DomainError);
      }
    });
  });

  it('keys members by the MD5 of the trimmed, lower-cased email', () => {
    expect(subscriberHash(' Ada@Example.com ')).toBe(subscriberHash('ada@example.com'));
    expect(subscriberHash('ada@example.com')).toMatch(/^[0-9a-f]{32}$/);
  });

  describe('parseInboundPost', () => {
    it('reads form-encoded flat keys and nested JSON alike', () => {
      const expected = { kind: 'member', type: 'unsubscribe', email: 'a@example.com', listId: 'l1', firedAt: '2026-05-01 09:00:00' };
      expect(
        parseInboundPost({ type: 'unsubscribe', fired_at: '2026-05-01 09:00:00', 'data[email]': 'a@example.com', 'data[list_id]': 'l1' }),
      ).toEqual(expected);
      expect(
        parseInboundPost({ type: 'unsubscribe', fired_at: '2026-05-01 09:00:00', data: { email: 'a@example.com', list_id: 'l1' } }),
      ).toEqual(expected);
    });

    it('treats an empty post as the URL check and campaign events as other', () => {
      expect(parseInboundPost(undefined)).toEqual({ kind: 'validation' });
      expect(parseInboundPost({})).toEqual({ kind: 'validation' });
      expect(parseInboundPost({ type: 'campaign', 'data[list_id]': 'l1' })).toMatchObject({ kind: 'other', type: 'campaign' });
    });

    it('refuses a member event without email or list, and repeated fields, as malformed', () => {
      for (const body of [
        { type: 'unsubscribe', 'data[list_id]': 'l1' },
        { type: 'subscribe', 'data[email]': 'a@example.com' },
        { type: ['unsubscribe', 'subscribe'] },
        { 'data[email]': 'a@example.com' },
        'text',
      ]) {
        expect(() => parseInboundPost(body)).toThrow(expect.objectContaining({ code: 'mailing_webhook_malformed' }));
      }
    });
  });
});
