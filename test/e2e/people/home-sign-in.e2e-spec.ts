import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@svc/telemetry';
import { TEST_NATS_URL, http } from '@svc/testing';
import { connect, type NatsConnection } from 'nats';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../hosted-pages/support';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

/**
 * A person signing in at a region where they have no account is sent to their home region's
 * sign-in: the region asks the others over the bus with only a keyed digest of the email.
 */
describe('people: sign-in at the wrong region', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let tap: NatsConnection;
  let browser: Browser;
  const lines: string[] = [];
  const onBus: Array<{ subject: string; bytes: Buffer }> = [];
  const marker = `hm${randomBytes(5).toString('hex')}`;
  const email = `rosalind.${marker}@example.test`;
  const unknown = `nobody.${marker}@example.test`;

  async function mailsOf(address: string, n: number): Promise<Awaited<ReturnType<typeof mailsTo>>> {
    for (let i = 0; i < 100; i += 1) {
      const found = await mailsTo(mail, address);
      if (found.length >= n) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return mailsTo(mail, address);
  }

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((line) => line.length > 0),
        );
        done();
      },
    });
    const logger: Logger = createLogger({ service: 'home-sign-in', region: 'us', level: 'debug', destination });
    mail = await startMailDev();
    stack = await startRegions('home_sign_in', {
      regions: ['us', 'eu'],
      logger,
      env: { SMTP_URL: mail.smtpUrl, PEOPLE_LOOKUP_KEY: randomBytes(32).toString('base64') },
    });
    us = stack.url.us;
    eu = stack.url.eu;
    tap = await connect({ servers: TEST_NATS_URL, name: 'home-sign-in-tap' });
    void (async () => {
      for await (const msg of tap.subscribe(`${stack.prefix}.*.rpc.gateway.find_person_home`))
        onBus.push({ subject: msg.subject, bytes: Buffer.from(msg.data) });
    })();
    await tap.flush();
    const start = await http('POST', `${us}/people/email_codes`, {
      json: { purpose: 'sign_up', email, display_name: 'Rosalind Franklin', home_country: 'US' },
    });
    expect(start.status).toBe(202);
    const verified = await http('POST', `${us}/people/email_codes/verify`, {
      json: { challenge_id: start.body.challenge_id, code: await codeFor(mail, email, 1) },
    });
    expect(verified.status).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
    await tap?.drain();
    await stack?.close();
    await mail?.stop();
  });

  it('answers 421 wrong_region with the home country when the person is homed in another region, and sends no mail', async () => {
    const res = await http('POST', `${eu}/people/email_codes`, { json: { purpose: 'sign_in', email: email.toUpperCase() } });
    expect(res.status).toBe(421);
    expect(res.body.reason_code).toBe('wrong_region');
    expect(res.body.home_country).toBe('US');
    expect(res.body.detail).toMatchObject({ home_region: 'us', home_country: 'US', home_region_url: us });
    expect(res.text).not.toContain(marker);
    // Only the sign-up mail: eu sent neither a code nor a note.
    expect(await mailsTo(mail, email)).toHaveLength(1);
    // At the home region the same sign-in sends a code.
    expect((await http('POST', `${us}/people/email_codes`, { json: { purpose: 'sign_in', email } })).status).toBe(202);
    await codeFor(mail, email, 2);
  });

  it('still sends the sign-up note for an address homed nowhere', async () => {
    const res = await http('POST', `${eu}/people/email_codes`, { json: { purpose: 'sign_in', email: unknown } });
    expect(res.status).toBe(202);
    const mails = await mailsOf(unknown, 1);
    expect(mails).toHaveLength(1);
    expect(`${mails[0]!.subject} ${mails[0]!.text ?? ''}`).not.toMatch(/\b\d{6}\b/);
    expect(mails[0]!.text).toContain(`${eu}/people/sign-up`);
  });

  it("sends the browser from the sign-in page to the home region's sign-in page, without the email in the address", async () => {
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${eu}/people/sign-in`);
    await page.fill('#people-email-input', email);
    await Promise.all([page.waitForURL(`${us}/people/sign-in`), page.click('#people-email button[type=submit]')]);
    expect(page.url()).toBe(`${us}/people/sign-in`);
    expect(page.url()).not.toContain(marker);
  });

  it('asks the other region with a digest only: no email on the bus subject or payload, none in any log', () => {
    expect(onBus.length).toBeGreaterThanOrEqual(2);
    expect(onBus.map((m) => m.subject)).toContain(`${stack.prefix}.us.rpc.gateway.find_person_home`);
    for (const message of onBus) {
      expect(message.subject).not.toContain(marker);
      expect(message.bytes.toString('latin1')).not.toContain(marker);
      expect(message.bytes.length).toBeLessThanOrEqual(40);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(marker))).toEqual([]);
  });
});
