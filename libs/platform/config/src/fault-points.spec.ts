import { FAULT_POINTS, FAULT_POINTS_VARIABLE, faultPoint, parseFaultPoints } from './fault-points';

describe('fault points', () => {
  it('arms nothing without the variable, and nothing in production whatever it says', () => {
    expect(parseFaultPoints({})).toBeUndefined();
    expect(parseFaultPoints({ [FAULT_POINTS_VARIABLE]: ' ' })).toBeUndefined();
    expect(parseFaultPoints({ [FAULT_POINTS_VARIABLE]: 'grant.after-commit', NODE_ENV: 'production' })).toBeUndefined();
  });

  it('reads name (first hit), name#N (Nth hit) and name@P (probability per hit)', () => {
    const armed = parseFaultPoints({
      [FAULT_POINTS_VARIABLE]: 'grant.after-commit, outbox.after-publish#3,webhook.after-2xx@0.25',
      NODE_ENV: 'test',
    });
    expect(Object.fromEntries(armed!)).toEqual({
      'grant.after-commit': { nth: 1 },
      'outbox.after-publish': { nth: 3 },
      'webhook.after-2xx': { probability: 0.25 },
    });
  });

  it.each(['grant.after-comit', 'grant.after-commit#0', 'grant.after-commit@2', 'grant.after-commit#x', ''])(
    'refuses %j, naming the variable and the known points',
    (entry) => {
      expect(() => parseFaultPoints({ [FAULT_POINTS_VARIABLE]: `record.after-commit,${entry}` })).toThrow(
        new RegExp(
          `^${FAULT_POINTS_VARIABLE}: .*${Object.keys(FAULT_POINTS)
            .map((name) => name.replace('.', '\\.'))
            .join(', ')}`,
        ),
      );
    },
  );

  it('is a no-op in a process that armed nothing', () => {
    for (const name of Object.keys(FAULT_POINTS) as Array<keyof typeof FAULT_POINTS>) expect(faultPoint(name)).toBeUndefined();
  });
});
