import { canonicalJson } from '@svc/crypto';
import type { NoticeContent } from './inputs';
import { noticeHash, noticeHashInput } from './notice-hash';
import vector from './notice-hash.vector.json';

/** Spec: Durable receipt schema svc-cr/2.13, pii_processing — the notice hash. */
describe('notice hash', () => {
  const input = vector.input as NoticeContent;

  it('matches the committed test vector (canonical text and SHA-256)', () => {
    expect(canonicalJson(noticeHashInput(input))).toBe(vector.canonical);
    expect(noticeHash(input)).toBe(vector.sha256);
  });

  it('does not depend on the order of purpose rows (sorted by name)', () => {
    expect(noticeHash({ ...input, purposes: [...input.purposes].reverse() })).toBe(vector.sha256);
  });

  it.each([
    ['locale', { locale: 'fr-FR' }],
    ['title', { title: 'Other title' }],
    ['description', { description: 'Other description' }],
    ['policy URL', { policy_url: 'https://acme.example/privacy-v2' }],
    ['policy URL removed', { policy_url: null }],
  ])('changes when the %s changes', (_name, change) => {
    expect(noticeHash({ ...input, ...change })).not.toBe(vector.sha256);
  });

  it.each(['name', 'label', 'description', 'mechanism', 'required'] as const)('changes when a purpose row %s changes', (field) => {
    const [first, ...rest] = input.purposes;
    const changed = {
      ...first!,
      [field]: field === 'required' ? !first!.required : field === 'mechanism' ? 'contract' : `${String(first![field])}x`,
    };
    expect(noticeHash({ ...input, purposes: [changed, ...rest] })).not.toBe(vector.sha256);
  });

  it('covers exactly the listed fields: extra members on the input do not change it', () => {
    const extra = {
      ...input,
      data_fields: ['email'],
      purposes: input.purposes.map((p) => ({ ...p, internal_note: 'x' })),
    } as unknown as NoticeContent;
    expect(noticeHash(extra)).toBe(vector.sha256);
  });
});
