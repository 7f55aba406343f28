import { validateSync } from 'class-validator';
import { ID_FORMATS, type IdKind, idPattern, isIdOf, newId, newRegionalId } from './identifiers';
import { IsIdOf } from './is-id-of';

class Body {
  @IsIdOf('agent') agent_id!: unknown;
}

class ListBody {
  @IsIdOf('flow', { each: true }) flow_ids!: unknown;
}

const errorsOf = (target: object) =>
  validateSync(target).map((error) => ({
    property: error.property,
    constraints: Object.keys(error.constraints ?? {}),
    messages: Object.values(error.constraints ?? {}),
  }));

describe('IsIdOf', () => {
  it('accepts an identifier minted by the registry for the kind, in every region', () => {
    for (const region of ['us', 'eu', 'ap', 'dev'] as const)
      expect(errorsOf(Object.assign(new Body(), { agent_id: newRegionalId('agent', region) }))).toEqual([]);
  });

  it.each([
    ['another kind', newRegionalId('flow', 'us')],
    ['an unknown region', 'agent_zz_aaaaaaaaaaaaaaaaaaaa'],
    ['a short random part', 'agent_us_aaaa'],
    ['U+0000', 'agent_us_aaaaaaaaaaaaaaaaaaa\u0000'],
    ['a lone surrogate', 'agent_us_aaaaaaaaaaaaaaaaaaa\ud800'],
    ['a trailing newline', `${newRegionalId('agent', 'us')}\n`],
  ])('refuses %s with a rule error naming the field and the shape', (_case, value) => {
    expect(errorsOf(Object.assign(new Body(), { agent_id: value }))).toEqual([
      { property: 'agent_id', constraints: ['matches'], messages: ['agent_id must be a well-formed agent id (agent_<region>_…)'] },
    ]);
  });

  it('refuses a non-string as a type error', () => {
    expect(errorsOf(Object.assign(new Body(), { agent_id: 42 }))[0]?.constraints).toContain('isString');
  });

  it('checks each element of an array with each: true', () => {
    expect(errorsOf(Object.assign(new ListBody(), { flow_ids: [newRegionalId('flow', 'eu')] }))).toEqual([]);
    expect(errorsOf(Object.assign(new ListBody(), { flow_ids: [newRegionalId('flow', 'eu'), 'flw_eu_x'] }))[0]?.messages).toEqual([
      'each of flow_ids must be a well-formed flow id (flw_<region>_…)',
    ]);
  });
});

describe('idPattern', () => {
  it('accepts exactly what isIdOf accepts for every kind of the registry', () => {
    for (const kind of Object.keys(ID_FORMATS) as IdKind[]) {
      const minted = ID_FORMATS[kind].regional
        ? newRegionalId(kind as Parameters<typeof newRegionalId>[0], 'eu')
        : newId(kind as Parameters<typeof newId>[0]);
      expect([kind, idPattern(kind).test(minted)]).toEqual([kind, isIdOf(kind, minted)]);
      expect(idPattern(kind).test(`${minted}x`)).toBe(false);
    }
  });
});
