import { STATUS_LIST_SIZE, StatusLists } from '@svc/receipts';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

/**
 * Issue 22, status list privacy: credentials get random unused positions of a list, never the next
 * one in issuance order, and concurrent issuances never share a position (the list's row lock and
 * the credentials' unique position say so), against the region's real database.
 */
describe('status list positions are random, unused and collision-free under concurrency', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let lists: StatusLists;
  let dataSource: DataSource;

  const allocate = () => dataSource.transaction((manager) => lists.allocate(manager));
  const listRow = async (id: string) =>
    (
      (await dataSource.query(`SELECT size, used_count, allocated FROM receipts.status_lists WHERE id = $1`, [id])) as Array<{
        size: number;
        used_count: number;
        allocated: Buffer;
      }>
    )[0]!;

  beforeAll(async () => {
    stack = await startRegions('verify_positions', { clock, regions: ['us'] });
    lists = stack.process.us.app.get(StatusLists, { strict: false });
    dataSource = stack.process.us.app.get(DataSource, { strict: false });
  });
  afterAll(() => stack?.close());

  it('hands out distinct random positions to 30 concurrent issuances, and records each as taken', async () => {
    const taken = await Promise.all(Array.from({ length: 30 }, () => allocate()));
    const listIds = new Set(taken.map((entry) => entry.listId));
    expect([...listIds]).toEqual(['us-1']);
    const indexes = taken.map((entry) => entry.index);
    expect(new Set(indexes).size).toBe(30);
    expect(indexes.every((index) => Number.isInteger(index) && index >= 0 && index < STATUS_LIST_SIZE)).toBe(true);
    // Sequential handing out would give exactly 0…29; 30 random picks of 16 384 land there with
    // a probability far below 10^-100.
    expect(Math.max(...indexes)).toBeGreaterThan(29);
    const row = await listRow('us-1');
    expect(row.used_count).toBe(30);
    const marked = [...row.allocated].flatMap((byte, index) => (byte === 1 ? [index] : []));
    expect(marked).toEqual([...indexes].sort((a, b) => a - b));
  });

  it('one after another, positions do not follow issuance order', async () => {
    const sequence: number[] = [];
    for (let n = 0; n < 8; n++) sequence.push((await allocate()).index);
    const ascendingByOne = sequence.every((index, n) => n === 0 || index === sequence[n - 1]! + 1);
    expect(ascendingByOne).toBe(false);
  });

  it('fills a small list to the last free position under concurrency, then moves on to another list', async () => {
    // A list of 12 positions, 4 already taken, and the newest: the next allocations go to it.
    const allocated = Buffer.alloc(12);
    for (const index of [0, 5, 6, 11]) allocated[index] = 1;
    await dataSource.query(
      `INSERT INTO receipts.status_lists (id, size, used_count, statuses, allocated, updated_at) VALUES ('us-999', 12, 4, $1, $2, '2030-01-01T00:00:00Z')`,
      [Buffer.alloc(12), allocated],
    );
    const taken = await Promise.all(Array.from({ length: 10 }, () => allocate()));
    const inSmall = taken.filter((entry) => entry.listId === 'us-999').map((entry) => entry.index);
    expect(inSmall.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 7, 8, 9, 10]);
    expect(taken.filter((entry) => entry.listId !== 'us-999')).toHaveLength(2);
    expect((await listRow('us-999')).used_count).toBe(12);
  });
});
