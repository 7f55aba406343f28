import { addDecimal, compareDecimal, isDecimal } from './decimal';

describe('decimal strings (value bounds never use floats)', () => {
  it('compares across scales exactly', () => {
    expect(compareDecimal('100.00', '100')).toBe(0);
    expect(compareDecimal('100.01', '100')).toBe(1);
    expect(compareDecimal('99.999999999999999999', '100')).toBe(-1);
    expect(compareDecimal('0.3', addDecimal('0.1', '0.2'))).toBe(0);
  });

  it('adds without rounding', () => {
    expect(addDecimal('1.50', '1')).toBe('2.5');
    expect(addDecimal('0', '0')).toBe('0');
    expect(addDecimal('999999999999999999.5', '0.5')).toBe('1000000000000000000');
  });

  it('accepts only unsigned decimal strings', () => {
    for (const ok of ['0', '1', '10.5', '0.000001']) expect(isDecimal(ok)).toBe(true);
    for (const bad of ['-1', '01', '1.', '.5', '1e3', '1,5', ' 1', 1.5, '']) expect(isDecimal(bad)).toBe(false);
    expect(() => compareDecimal('1e3', '1')).toThrow(RangeError);
  });
});
