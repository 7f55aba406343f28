import { DomainError } from '@svc/errors';
import { capturableInOwnForm } from './flow';
import { termsFromCreate, termsWithUpdate } from './flow-terms';
import type { CreateFlowBody } from './flows.dto';

const body = {
  name: 'Newsletter',
  locale: 'en',
  presentation: { title: 'Stay in touch' },
  purposes: [{ key: 'newsletter', label: 'Newsletter' }],
} as CreateFlowBody;

/** Spec: Resources — Flow ("capturable in your own form only if…"). */
describe('flow terms', () => {
  it('fills defaults: consent mechanism, optional purpose, standard path, any-time revocation, open-ended', () => {
    expect(termsFromCreate(body)).toEqual({
      name: 'Newsletter',
      locale: 'en',
      presentation: { title: 'Stay in touch', description: '' },
      policy_url: null,
      purposes: [{ key: 'newsletter', label: 'Newsletter', description: '', mechanism: 'consent', required: false }],
      data_fields: [],
      purpose_of_use: null,
      retention_period: null,
      revocation_policy: 'any_time',
      consent_path: 'standard',
      requirements: [],
      consent_duration: null,
    });
  });

  it('is capturable in your own form only with a decision-only flow that declares a consent duration', () => {
    expect(capturableInOwnForm({ requirements: [], consent_path: 'standard', consent_duration: 'P1Y' })).toBe(true);
    expect(capturableInOwnForm({ requirements: [], consent_path: 'standard', consent_duration: null })).toBe(false);
    expect(capturableInOwnForm({ requirements: ['identity_verification'], consent_path: 'standard', consent_duration: 'P1Y' })).toBe(false);
    expect(capturableInOwnForm({ requirements: ['data_collection'], consent_path: 'standard', consent_duration: 'P1Y' })).toBe(false);
    expect(capturableInOwnForm({ requirements: ['bank_connection'], consent_path: 'standard', consent_duration: 'P1Y' })).toBe(false);
    expect(capturableInOwnForm({ requirements: [], consent_path: 'informed', consent_duration: 'P1Y' })).toBe(false);
  });

  it('applies an update field by field and keeps the rest', () => {
    const current = termsFromCreate({ ...body, consent_duration: 'P6M' } as CreateFlowBody);
    const updated = termsWithUpdate(current, { locale: 'fr', presentation: { title: 'Restons en contact' } });
    expect(updated).toEqual({ ...current, locale: 'fr', presentation: { title: 'Restons en contact', description: '' } });
  });

  it('refuses duplicate purpose or data-field keys and zero durations by name', () => {
    const duplicate = () =>
      termsFromCreate({
        ...body,
        purposes: [
          { key: 'a', label: 'A' },
          { key: 'a', label: 'B' },
        ],
      } as CreateFlowBody);
    expect(duplicate).toThrow(DomainError);
    expect(duplicate).toThrow('purposes key "a" is used twice');
    expect(() =>
      termsFromCreate({
        ...body,
        data_fields: [
          { key: 'e', label: 'E' },
          { key: 'e', label: 'F' },
        ],
      } as CreateFlowBody),
    ).toThrow('data_fields key "e" is used twice');
    expect(() => termsFromCreate({ ...body, consent_duration: 'PT0S' } as CreateFlowBody)).toThrow(
      'consent_duration must be longer than zero',
    );
  });
});
