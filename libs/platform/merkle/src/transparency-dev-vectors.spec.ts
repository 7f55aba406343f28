/**
 * The transparency-dev/merkle inclusion and consistency proof probes (vendored, unchanged, under
 * `../fixtures/transparency-dev`, see its README): every probe that must verify does, every probe
 * that must fail does, exactly as their Go verifier decides.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { verifyConsistency, verifyInclusion } from './index';

const FIXTURES = join(__dirname, '..', 'fixtures', 'transparency-dev');

function probes<T>(kind: 'inclusion' | 'consistency'): Array<[string, T]> {
  const out: Array<[string, T]> = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) out.push([relative(FIXTURES, path), JSON.parse(readFileSync(path, 'utf8')) as T]);
    }
  };
  walk(join(FIXTURES, kind));
  return out;
}

/** Go's `[]byte` JSON: base64, `null` or absent for nil. */
const bytes = (value: string | null | undefined): Uint8Array => new Uint8Array(Buffer.from(value ?? '', 'base64'));
const proofOf = (value: Array<string | null> | null | undefined): Uint8Array[] => (value ?? []).map(bytes);

interface InclusionProbe {
  leafIdx: number;
  treeSize: number;
  root: string | null;
  leafHash: string | null;
  proof: Array<string | null> | null;
  desc: string;
  wantErr: boolean;
}

interface ConsistencyProbe {
  size1: number;
  size2: number;
  root1: string | null;
  root2: string | null;
  proof: Array<string | null> | null;
  desc: string;
  wantErr: boolean;
}

const inclusion = probes<InclusionProbe>('inclusion');
const consistency = probes<ConsistencyProbe>('consistency');

describe('transparency-dev/merkle proof vectors', () => {
  it('are all there (vendored folder not emptied)', () => {
    expect(inclusion.length).toBeGreaterThanOrEqual(95);
    expect(consistency.length).toBeGreaterThanOrEqual(90);
    expect(inclusion.filter(([, p]) => !p.wantErr).length).toBeGreaterThan(5);
    expect(consistency.filter(([, p]) => !p.wantErr).length).toBeGreaterThan(5);
  });

  it.each(inclusion)('inclusion %s', (_file, p) => {
    expect({ desc: p.desc, valid: verifyInclusion(p.leafIdx, p.treeSize, bytes(p.leafHash), proofOf(p.proof), bytes(p.root)) }).toEqual({
      desc: p.desc,
      valid: !p.wantErr,
    });
  });

  it.each(consistency)('consistency %s', (_file, p) => {
    expect({ desc: p.desc, valid: verifyConsistency(p.size1, p.size2, bytes(p.root1), bytes(p.root2), proofOf(p.proof)) }).toEqual({
      desc: p.desc,
      valid: !p.wantErr,
    });
  });
});
