import { notificationLocale, renderApprovalMail, renderReceiptMail } from './notification-texts';

describe('notification texts', () => {
  it('picks en or fr from a BCP 47 tag, English otherwise', () => {
    expect(notificationLocale('fr-CA')).toBe('fr');
    expect(notificationLocale('FR')).toBe('fr');
    expect(notificationLocale('de-DE')).toBe('en');
    expect(notificationLocale(null)).toBe('en');
  });

  it('renders a receipt in text and HTML, escaping what the application and flow wrote', () => {
    const mail = renderReceiptMail('en', {
      applicationName: 'Acme <b>Ltd</b>',
      recordedAt: new Date('2026-03-04T10:30:00Z'),
      grantedPurposes: ['News & offers'],
      receiptUrl: 'https://api.example/api/v1/consent_receipts/cr_us_1',
      withdrawalUrl: 'https://api.example/people/account',
    });
    expect(mail.subject).toBe('Your consent receipt from Acme <b>Ltd</b>');
    expect(mail.text).toContain('- News & offers');
    expect(mail.text).toContain('March 4, 2026 at 10:30 AM UTC');
    expect(mail.html).toContain('Acme &lt;b&gt;Ltd&lt;/b&gt;');
    expect(mail.html).toContain('<li>News &amp; offers</li>');
    expect(mail.html).not.toMatch(/<img|src=|url\(/);
  });

  it('says so when nothing was granted, in French too', () => {
    const mail = renderReceiptMail('fr', {
      applicationName: 'Acme',
      recordedAt: new Date('2026-03-04T10:30:00Z'),
      grantedPurposes: [],
      receiptUrl: 'https://a/r',
      withdrawalUrl: 'https://a/w',
    });
    expect(mail.text).toContain("Vous n'avez accepté aucune des finalités proposées.");
    expect(mail.text).toContain('4 mars 2026');
  });

  it('renders an approval notice with the deadline and the link', () => {
    const mail = renderApprovalMail('en', {
      applicationName: 'Acme',
      agentName: 'shopper',
      action: 'pay 25.50 EUR',
      deadline: new Date('2026-03-04T10:40:00Z'),
      approvalUrl: 'https://a/approvals/x.y.z',
    });
    expect(mail.text).toContain('the agent shopper wants to pay 25.50 EUR');
    expect(mail.text).toContain('https://a/approvals/x.y.z');
    expect(mail.html).toContain('href="https://a/approvals/x.y.z"');
  });
});
