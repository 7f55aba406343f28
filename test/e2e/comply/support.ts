import { http } from '@svc/testing';

/** A flow body a DPO would sign off under every regime's default rules. */
export const compliantFlow = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Measurement',
  locale: 'en-GB',
  presentation: { title: 'Help us measure', description: 'Counting who sees our campaigns' },
  policy_url: 'https://example.com/privacy',
  purposes: [
    { key: 'measurement', label: 'Campaign measurement', description: 'Counting reach', mechanism: 'consent', required: false },
    { key: 'service', label: 'Service emails', mechanism: 'contract', required: true },
  ],
  data_fields: [{ key: 'age_confirmation', label: 'I am 16 or older', required: true }],
  retention_period: 'P1Y',
  revocation_policy: 'any_time',
  consent_duration: 'P1Y',
  ...overrides,
});

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Creates a draft flow and answers its id. */
export async function draftFlow(base: string, token: string, body: Record<string, unknown>): Promise<string> {
  const created = await http<{ id: string }>('POST', `${base}/api/v1/flows`, { headers: bearer(token), json: body });
  if (created.status !== 201) throw new Error(`flow not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Records a consent for an email at a flow: granted or declined for the purpose. */
export async function recordConsent(
  base: string,
  token: string,
  flowId: string,
  email: string,
  decisions: Record<string, 'granted' | 'declined'>,
): Promise<string> {
  const res = await http<{ id: string }>('POST', `${base}/api/v1/consent_records`, {
    headers: bearer(token),
    json: {
      flow_id: flowId,
      subject: { email },
      decisions: Object.fromEntries(Object.entries(decisions).map(([purpose, decision]) => [purpose, { decision }])),
      captured_at: new Date(Date.now() - 60_000).toISOString(),
    },
  });
  if (res.status !== 201) throw new Error(`record not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}
