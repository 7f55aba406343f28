import { IsString, MaxLength, MetadataStorage, ValidationTypes, getMetadataStorage, registerDecorator, validate } from 'class-validator';
import { memoiseValidationMetadata } from './validation';

class Base {
  @IsString() name!: string;
}

class Derived extends Base {
  @MaxLength(3) code!: string;
}

describe('memoiseValidationMetadata', () => {
  it('answers the same rules as the unmemoised lookup, inherited ones included', () => {
    const plain = new MetadataStorage();
    const memoised = new MetadataStorage();
    for (const storage of [plain, memoised]) {
      for (const target of [Base, Derived]) {
        for (const metadata of getMetadataStorage().getTargetValidationMetadatas(target, '', false, false)) {
          if (metadata.target === target) storage.addValidationMetadata(metadata);
        }
      }
    }
    memoiseValidationMetadata(memoised);
    const rules = (storage: MetadataStorage) =>
      storage.getTargetValidationMetadatas(Derived, '', false, false).map((m) => `${m.propertyName}:${m.name ?? m.type}`);
    expect(rules(memoised)).toEqual(rules(plain));
    expect(rules(memoised).sort()).toEqual(['code:maxLength', 'name:isString']);
    const first = memoised.getTargetValidationMetadatas(Derived, '', false, false);
    expect(memoised.getTargetValidationMetadatas(Derived, '', false, false)).toBe(first);
    expect(memoised.groupByPropertyName(first)).toBe(memoised.groupByPropertyName(first));
  });

  it('forgets what it kept when a rule is added after a lookup', async () => {
    memoiseValidationMetadata();
    class Late {
      label!: string;
    }
    const late = Object.assign(new Late(), { label: 'x' });
    expect(getMetadataStorage().getTargetValidationMetadatas(Late, '', false, false)).toEqual([]);
    registerDecorator({
      target: Late,
      propertyName: 'label',
      validator: { validate: (value: unknown) => value === 'ok', defaultMessage: () => 'label must be ok' },
    });
    const rules = getMetadataStorage().getTargetValidationMetadatas(Late, '', false, false);
    expect(rules.map((m) => m.type)).toEqual([ValidationTypes.CUSTOM_VALIDATION]);
    const errors = await validate(late);
    expect(errors.map((e) => e.constraints)).toEqual([{ customValidation: 'label must be ok' }]);
  });

  it('is installed once however often it is called', () => {
    const storage = new MetadataStorage();
    memoiseValidationMetadata(storage);
    const installed = storage.getTargetValidationMetadatas;
    memoiseValidationMetadata(storage);
    expect(storage.getTargetValidationMetadatas).toBe(installed);
  });
});
