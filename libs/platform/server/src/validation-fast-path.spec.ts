import { plainToInstance, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  Validate,
  validate,
  type ValidatorConstraintInterface,
  type ValidatorOptions,
} from 'class-validator';
import fc from 'fast-check';
import { passesValidation } from './validation-fast-path';

const OPTIONS: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };

class Amount {
  @IsString() @Matches(/^\d+(\.\d{1,2})?$/) value!: string;
  @IsIn(['EUR', 'USD']) currency!: string;
}

class Hop {
  @IsString() @MinLength(1) @MaxLength(4) iss!: string;
  @IsISO8601({ strict: true }) at!: string;
}

class Body {
  @IsString() @MinLength(2) @MaxLength(5) name!: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(3) @IsString({ each: true }) @Matches(/^[a-z]+$/, { each: true }) tags!: string[];
  @IsOptional() @ValidateNested() @Type(() => Amount) amount?: Amount;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Hop) hops?: Hop[];
  @IsOptional() @IsObject() extra?: Record<string, unknown>;
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsDefined() @IsInt() count!: number;
  @ValidateIf((o: Body) => o.flag === true) @IsString() reason?: string;
}

@ValidatorConstraint({ name: 'eventually', async: true })
class Eventually implements ValidatorConstraintInterface {
  async validate(): Promise<boolean> {
    return true;
  }
}

class AsyncRule {
  @Validate(Eventually) @IsString() name!: string;
}

class NoRules {
  name?: string;
}

/** Values of every kind a JSON body carries, and a few it cannot, to mix into bodies. */
const anyValue = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    true,
    false,
    0,
    1.5,
    -3,
    '',
    'ab',
    'abc',
    'ABC',
    'x'.repeat(6),
    '😀😀',
    '2026-01-02T03:04:05Z',
    '2026-13-02',
  ),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.array(fc.constantFrom('a', 'bc', 'B', '', 1, null), { maxLength: 4 }),
  fc.dictionary(
    fc.constantFrom('value', 'currency', 'iss', 'at', 'x'),
    fc.constantFrom('1.50', 'EUR', 'USD', 'ab', '2026-01-02T03:04:05Z', 7, null),
  ),
);

/** Mostly a value the rule accepts, sometimes anything: bodies are often valid, and fail in every way. */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: anyValue, weight: 1 });

const hop = fc.record({
  iss: mostly(fc.constantFrom('ab', 'a', 'abcd')),
  at: mostly(fc.constantFrom('2026-01-02T03:04:05Z', '2026-01-02')),
});

const body = fc.record(
  {
    name: mostly(fc.constantFrom('ab', 'abcd', '😀😀', 'abcde')),
    tags: mostly(fc.array(fc.constantFrom('ab', 'c', 'xyz'), { minLength: 1, maxLength: 3 })),
    amount: mostly(fc.record({ value: fc.constantFrom('1', '1.50', '20.05'), currency: fc.constantFrom('EUR', 'USD') })),
    hops: mostly(fc.array(hop, { maxLength: 3 })),
    extra: mostly(fc.constant({ any: 'thing' })),
    flag: mostly(fc.boolean()),
    count: mostly(fc.integer()),
    reason: mostly(fc.constantFrom('why', '')),
    unknown: anyValue,
  },
  { requiredKeys: ['name', 'tags', 'count'] },
);

async function fullValidatorPasses(entity: object): Promise<boolean> {
  return (await validate(entity, OPTIONS)).length === 0;
}

describe('passesValidation (the validator fast path)', () => {
  it('says valid exactly when class-validator finds no error, on random bodies', async () => {
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(body, async (plain) => {
        const entity = plainToInstance(Body, plain);
        const expected = await fullValidatorPasses(entity);
        if (expected) valid += 1;
        expect(passesValidation(entity)).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
    // The generator reaches both answers, often.
    expect(valid).toBeGreaterThan(50);
  });

  it('accepts a valid body with every nested shape, and refuses a stray property, a wrong nested type and a missing defined field', async () => {
    const good = {
      name: 'abc',
      tags: ['ab', 'c'],
      amount: { value: '1.50', currency: 'EUR' },
      hops: [{ iss: 'ab', at: '2026-01-02T03:04:05Z' }],
      extra: { anything: [1, 2] },
      flag: true,
      reason: 'why',
      count: 2,
    };
    for (const plain of [
      good,
      { ...good, stray: 1 },
      { ...good, amount: 'EUR' },
      { ...good, hops: ['ab'] },
      { ...good, hops: [{ iss: 'ab', at: '2026-01-02T03:04:05Z', stray: true }] },
      { ...good, count: undefined },
      { ...good, reason: undefined },
      { ...good, flag: false, reason: undefined },
    ]) {
      const entity = plainToInstance(Body, plain);
      expect({ plain, fast: passesValidation(entity) }).toEqual({ plain, fast: await fullValidatorPasses(entity) });
    }
    expect(passesValidation(plainToInstance(Body, good))).toBe(true);
  });

  it('leaves asynchronous rules and classes without rules to the full validator', async () => {
    const asyncEntity = plainToInstance(AsyncRule, { name: 'ok' });
    expect(await fullValidatorPasses(asyncEntity)).toBe(true);
    expect(passesValidation(asyncEntity)).toBe(false);
    const bare = plainToInstance(NoRules, { name: 'ok' });
    expect(await fullValidatorPasses(bare)).toBe(false);
    expect(passesValidation(bare)).toBe(false);
  });
});
