import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The lines between the quick-start markers of the script. */
function scriptBlock(): string {
  const script = readFileSync(join(ROOT, 'scripts', 'quickstart.sh'), 'utf8');
  const match = /# --- quick start ---\n([\s\S]*?)# --- end ---\n/.exec(script);
  if (!match) throw new Error('scripts/quickstart.sh has no quick-start markers');
  return match[1]!;
}

/** The shell block of the README's quick start. */
function readmeBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /<!-- quickstart:begin -->\n```sh\n([\s\S]*?)```\n<!-- quickstart:end -->/.exec(readme);
  if (!match) throw new Error('README.md has no quick-start block');
  return match[1]!;
}

describe('the README quick start', () => {
  it('shows exactly the commands scripts/quickstart.sh runs (and the end-to-end tier runs the script)', () => {
    expect(readmeBlock()).toBe(scriptBlock());
  });
});
