import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '@svc/testing';
import { entries, openChain, type ChainFixture } from './support/chain-fixture';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..', '..');
// Each case spawns the CLI (SWC transpiles on the fly): slow on a loaded machine.
jest.setTimeout(180_000);

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.js', 'tools/svc-audit/cli.ts', ...args], {
      cwd: ROOT,
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Issue 9 Deliver 3: `svc-audit verify --region us` recomputes the chain and reports the first broken index. */
describe('svc-audit verify (CLI)', () => {
  let f: ChainFixture;
  let url: string;
  beforeAll(async () => {
    f = await openChain(await createTestDatabase('audit_cli'));
    url = (f.dataSource.options as { url: string }).url;
    await f.chain.appender.append(entries(30));
    await f.chain.createCheckpoint.execute();
    await f.chain.appender.append(entries(10, undefined, 'late'));
  });
  afterAll(() => f?.close());

  it('exits 0 with the verified size for an intact chain, from genesis and from a checkpoint', async () => {
    const genesis = await cli('verify', '--region', 'us', '--database-url', url);
    expect(genesis.code).toBe(0);
    expect(JSON.parse(genesis.stdout)).toMatchObject({
      region: 'us',
      valid: true,
      verified_from_index: 0,
      verified_size: 41,
      checkpoints_verified: 1,
      first_broken_index: null,
    });
    const fromCheckpoint = await cli('verify', '--region', 'us', '--from-checkpoint', '1', '--database-url', url);
    expect(JSON.parse(fromCheckpoint.stdout)).toMatchObject({ valid: true, verified_from_index: 31, verified_size: 41 });
  });

  it('exits 1 naming the exact index of an altered, a deleted and a reordered entry', async () => {
    const altered = await f.dataSource.query('SELECT canonical FROM audit.entries WHERE idx = 17');
    await f.dataSource.query(`UPDATE audit.entries SET canonical = replace(canonical, '"n":', '"m":') WHERE idx = 17`);
    const one = await cli('verify', '--region', 'us', '--database-url', url);
    await f.dataSource.query('UPDATE audit.entries SET canonical = $1 WHERE idx = 17', [
      (altered as Array<{ canonical: string }>)[0]?.canonical,
    ]);
    expect(one.code).toBe(1);
    expect(JSON.parse(one.stdout)).toMatchObject({ valid: false, first_broken_index: 17, reason: 'hash_mismatch' });

    await f.dataSource.query('UPDATE audit.entries SET idx = idx + 1000 WHERE idx = 35');
    const deleted = await cli('verify', '--region', 'us', '--database-url', url);
    await f.dataSource.query('UPDATE audit.entries SET idx = idx - 1000 WHERE idx = 1035');
    expect(JSON.parse(deleted.stdout)).toMatchObject({ valid: false, first_broken_index: 35, reason: 'missing_entry' });

    // Entries 8 and 9 change places (their content moves, the index column stays).
    const swap = `UPDATE audit.entries e SET previous_hash = o.previous_hash, hash = o.hash, canonical = o.canonical
      FROM (SELECT idx, previous_hash, hash, canonical FROM audit.entries WHERE idx IN (8, 9)) o WHERE e.idx IN (8, 9) AND o.idx = 17 - e.idx`;
    await f.dataSource.query(swap);
    const reordered = await cli('verify', '--region', 'us', '--database-url', url);
    await f.dataSource.query(swap);
    expect(JSON.parse(reordered.stdout)).toMatchObject({ valid: false, first_broken_index: 8, reason: 'link_mismatch' });
    expect((await cli('verify', '--region', 'us', '--database-url', url)).code).toBe(0);
  });

  it.each([
    [['verify'], '--region must be us, eu or ap'],
    [['verify', '--region', 'mars'], '--region must be us, eu or ap'],
    [['verify', '--region', 'us', '--from-checkpoint', 'x'], '--from-checkpoint must be'],
    [['verify', '--region', 'us', '--colour', 'red'], 'unknown flag --colour'],
    [['explode'], 'unknown command explode'],
  ])('exits 2 with usage for %j', async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('exits 1 for an unknown starting checkpoint', async () => {
    const result = await cli('verify', '--region', 'us', '--from-checkpoint', '9', '--database-url', url);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('checkpoint_not_found');
  });
});
