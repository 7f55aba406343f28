import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import type { RunningProcess } from '@svc/server';
import { http } from '@svc/testing';

/** An application with an active one-purpose flow (`newsletter`), as the outage tests write against. */
export interface NewsletterApp {
  headers: Record<string, string>;
  flowId: string;
}

export async function newsletterApp(region: RunningProcess, url: string): Promise<NewsletterApp> {
  const created = await region.app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name: 'Outage Ltd', environment: 'development' }));
  const headers = { authorization: `Bearer ${created.apiToken}` };
  return { headers, flowId: await activeNewsletterFlow(url, headers) };
}

/** Creates and activates the one-purpose `newsletter` flow of the application `headers` authenticate; its id. */
export async function activeNewsletterFlow(url: string, headers: Record<string, string>): Promise<string> {
  const flow = await http('POST', `${url}/api/v1/flows`, {
    headers,
    json: {
      name: 'Signup',
      locale: 'en',
      presentation: { title: 'Stay in touch' },
      purposes: [{ key: 'newsletter', label: 'Newsletter' }],
      consent_duration: 'P1Y',
    },
  });
  expect(flow.status).toBe(201);
  const flowId = flow.body.id as string;
  expect((await http('POST', `${url}/api/v1/flows/${flowId}/activate`, { headers, json: {} })).status).toBe(200);
  return flowId;
}

/** The answer to one Record API write of the newsletter consent. */
export interface RecordAnswer {
  status: number;
  id?: string;
  retryAfter: string | null;
  reasonCode?: unknown;
}

/** Records the newsletter consent of subject `<label>-<n>` (its own idempotency key). */
export async function recordNewsletterConsent(url: string, app: NewsletterApp, label: string, n: number): Promise<RecordAnswer> {
  const res = await http('POST', `${url}/api/v1/consent_records`, {
    headers: app.headers,
    json: {
      flow_id: app.flowId,
      subject: { external_id: `${label}-${n}` },
      decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
      captured_at: new Date(Date.now() - 60_000).toISOString(),
      idempotency_key: `${label}-${n}`,
    },
  });
  return {
    status: res.status,
    id: res.body.id as string | undefined,
    retryAfter: res.headers.get('retry-after'),
    reasonCode: res.body.reason_code,
  };
}
