import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The first run compiles the tools into the cache; later runs start in well under a second.
jest.setTimeout(60_000);

function run(bin: string, args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [join(__dirname, '..', bin), ...args], { encoding: 'utf8', timeout: 50_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** Issue 19 item 7: the offline verifiers answer --help with exit 0 and the usage on stdout, misuse with exit 2 on stderr. */
describe.each([
  ['svc-receipt/svc-receipt.js', 'usage: svc-receipt verify <receipt.json> --jwks <jwks.json>'],
  ['svc-audit/bin.js', 'usage: svc-audit verify --region <us|eu|ap>'],
])('%s (bin entry)', (bin, usage) => {
  it.each([['--help'], ['-h'], ['help'], ['verify', '--help']])('%s prints the usage on stdout and exits 0', (...args) => {
    const child = run(bin, args);
    expect(child).toMatchObject({ code: 0, stderr: '' });
    expect(child.stdout).toContain(usage);
  });

  it.each([[[]], [['frobnicate']], [['verify', '--colour', 'blue']]])(
    '%j exits 2 with the usage on stderr and nothing on stdout',
    (args) => {
      const child = run(bin, args);
      expect(child).toMatchObject({ code: 2, stdout: '' });
      expect(child.stderr).toContain(usage);
    },
  );
});
