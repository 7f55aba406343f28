import { AudienceFlows } from './audience-flows';
import type { MailingAudiencesRepository } from './mailing-audiences.repository';

/**
 * The mailing consumer's answer of which flows have an audience: read once per application, and
 * renewed at the commit of a connection made in this process — also when the consumer's read was
 * already on its way to the database as the connection committed.
 */
describe('audience flows (the mailing consumer’s cached answer)', () => {
  /** A stand-in for the table: reads answer what was committed when they started, released when the test says. */
  class Table {
    committed = new Map<string, Set<string>>();
    reads = 0;
    held: Array<() => void> = [];
    hold = false;
    flowsWithAudiences = (applicationId: string): Promise<ReadonlySet<string>> => {
      this.reads += 1;
      const snapshot = new Set(this.committed.get(applicationId) ?? []);
      if (!this.hold) return Promise.resolve(snapshot);
      return new Promise((resolve) => this.held.push(() => resolve(snapshot)));
    };
    connect(applicationId: string, flowId: string): Promise<void> {
      const flows = this.committed.get(applicationId) ?? new Set<string>();
      flows.add(flowId);
      this.committed.set(applicationId, flows);
      return Promise.resolve();
    }
  }
  let table: Table;
  let flows: AudienceFlows;

  beforeEach(() => {
    table = new Table();
    flows = new AudienceFlows(table as unknown as MailingAudiencesRepository);
  });

  it('answers every event of an application without audiences from one read', async () => {
    for (let i = 0; i < 100; i += 1) expect(await flows.connected('app_1', `flow_${i % 3}`)).toBe(false);
    expect(table.reads).toBe(1);
  });

  it('an audience connected just now: the next event of its flow is written to it', async () => {
    expect(await flows.connected('app_1', 'flow_a')).toBe(false);
    await flows.change('app_1', () => table.connect('app_1', 'flow_a'));
    expect(await flows.connected('app_1', 'flow_a')).toBe(true);
    expect(await flows.connected('app_1', 'flow_b')).toBe(false);
    expect(table.reads).toBe(2);
  });

  it('a read that started before the connection committed answers its own event only, not the next ones', async () => {
    table.hold = true;
    // An event received before the connection: its read takes its snapshot, then the connection commits.
    const before = flows.connected('app_1', 'flow_a');
    await flows.change('app_1', () => table.connect('app_1', 'flow_a'));
    table.held.shift()!();
    expect(await before).toBe(false);
    // The record written after the commit: a fresh read, which sees the connection.
    const after = flows.connected('app_1', 'flow_a');
    table.held.shift()!();
    expect(await after).toBe(true);
    table.hold = false;
    expect(await flows.connected('app_1', 'flow_a')).toBe(true);
    expect(table.reads).toBe(2);
  });

  it('events arriving while a connection commits read the table themselves', async () => {
    await flows.connected('app_1', 'flow_a');
    let commit!: () => void;
    const changing = flows.change(
      'app_1',
      () =>
        new Promise<void>((resolve) => {
          commit = () => void table.connect('app_1', 'flow_a').then(resolve);
        }),
    );
    expect(await flows.connected('app_1', 'flow_a')).toBe(false);
    commit();
    expect(await flows.connected('app_1', 'flow_a')).toBe(true);
    await changing;
    expect(await flows.connected('app_1', 'flow_a')).toBe(true);
    expect(table.reads).toBe(4);
  });

  it('another application keeps its answer', async () => {
    await flows.connected('app_1', 'flow_a');
    await flows.connected('app_2', 'flow_x');
    await flows.change('app_1', () => table.connect('app_1', 'flow_a'));
    expect(await flows.connected('app_2', 'flow_x')).toBe(false);
    expect(table.reads).toBe(2);
  });
});
