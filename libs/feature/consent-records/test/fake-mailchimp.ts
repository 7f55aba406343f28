import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One member of a list in the stand-in tool. */
export interface FakeMember {
  email_address: string;
  status: string;
  marketing_permissions: Array<{ marketing_permission_id: string; enabled: boolean }>;
  tags: Map<string, 'active' | 'inactive'>;
}

/** A request the stand-in received. */
export interface FakeRequest {
  method: string;
  path: string;
  authorization: string;
  body: unknown;
}

export const memberHash = (email: string): string => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

/**
 * A loopback stand-in for Mailchimp's Marketing API v3 (third-party test double): list members
 * keyed by the MD5 of the lower-cased email (PUT add-or-update, GET, POST …/tags), HTTP Basic with
 * the API key as password, problem-JSON errors, and scripted failures for the next requests.
 */
export class FakeMailchimp {
  readonly requests: FakeRequest[] = [];
  readonly members = new Map<string, FakeMember>();
  /** Statuses answered (instead of handling) to the next requests whose method matches. */
  private readonly scripted: Array<{ method: string; status: number }> = [];
  private server?: Server;
  url = '';

  constructor(readonly apiKey: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/3.0`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `count` requests with this method are answered `status` (e.g. 500). */
  failNext(method: string, status: number, count = 1): void {
    for (let i = 0; i < count; i += 1) this.scripted.push({ method, status });
  }

  member(listId: string, email: string): FakeMember | undefined {
    return this.members.get(`${listId}/${memberHash(email)}`);
  }

  setMember(listId: string, email: string, member: Partial<Omit<FakeMember, 'tags'>>): void {
    const key = `${listId}/${memberHash(email)}`;
    const existing = this.members.get(key) ?? { email_address: email, status: 'subscribed', marketing_permissions: [], tags: new Map() };
    this.members.set(key, { ...existing, ...member, tags: existing.tags });
  }

  requestsTo(email: string): FakeRequest[] {
    return this.requests.filter((r) => r.path.includes(memberHash(email)));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text ? JSON.parse(text) : undefined;
    const path = (req.url ?? '').replace(/^\/3\.0/, '');
    const method = req.method ?? 'GET';
    this.requests.push({ method, path, authorization: req.headers.authorization ?? '', body });
    const scripted = this.scripted.findIndex((s) => s.method === method);
    if (scripted >= 0) {
      const [{ status }] = this.scripted.splice(scripted, 1) as [{ method: string; status: number }];
      return this.problem(res, status, status >= 500 ? 'Internal Server Error' : 'Invalid Resource');
    }
    const expected = `Basic ${Buffer.from(`svc:${this.apiKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return this.problem(res, 401, 'API Key Invalid');
    const match = /^\/lists\/([^/]+)\/members\/([0-9a-f]{32})(\/tags)?$/.exec(path);
    if (!match) return this.problem(res, 404, 'Resource Not Found');
    const [, listId, hash, tags] = match;
    const key = `${listId}/${hash}`;
    const existing = this.members.get(key);
    if (tags && method === 'POST') {
      if (!existing) return this.problem(res, 404, 'Resource Not Found');
      for (const t of (body as { tags: Array<{ name: string; status: 'active' | 'inactive' }> }).tags) existing.tags.set(t.name, t.status);
      res.writeHead(204).end();
      return;
    }
    if (method === 'GET') {
      if (!existing) return this.problem(res, 404, 'Resource Not Found');
      return this.json(res, 200, this.view(existing));
    }
    if (method === 'PUT') {
      const input = body as {
        email_address: string;
        status_if_new?: string;
        status?: string;
        marketing_permissions?: FakeMember['marketing_permissions'];
      };
      if (!existing && !input.status_if_new) return this.problem(res, 400, 'Invalid Resource');
      const member: FakeMember = existing ?? {
        email_address: input.email_address,
        status: input.status_if_new ?? 'subscribed',
        marketing_permissions: [],
        tags: new Map(),
      };
      if (input.status) member.status = input.status;
      for (const p of input.marketing_permissions ?? []) {
        const current = member.marketing_permissions.find((m) => m.marketing_permission_id === p.marketing_permission_id);
        if (current) current.enabled = p.enabled;
        else member.marketing_permissions.push({ ...p });
      }
      this.members.set(key, member);
      return this.json(res, 200, this.view(member));
    }
    this.problem(res, 405, 'Method Not Allowed');
  }

  private view(member: FakeMember): Record<string, unknown> {
    return {
      id: memberHash(member.email_address),
      email_address: member.email_address,
      status: member.status,
      marketing_permissions: member.marketing_permissions.map((p) => ({ ...p, text: 'Permission' })),
      tags: [...member.tags].filter(([, s]) => s === 'active').map(([name]) => ({ name })),
    };
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private problem(res: ServerResponse, status: number, title: string): void {
    res
      .writeHead(status, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify({ type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail: title, instance: '' }));
  }
}
