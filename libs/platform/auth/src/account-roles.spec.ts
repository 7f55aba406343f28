import { ACCOUNT_ROLES, roleCovers } from './principal';

/** The account role matrix's order: auditor < developer < admin < owner. */
describe('account roles', () => {
  it('orders the roles weakest first', () => {
    expect(ACCOUNT_ROLES).toEqual(['auditor', 'developer', 'admin', 'owner']);
  });

  it('a role covers itself and every weaker role, never a stronger one', () => {
    const covered = Object.fromEntries(ACCOUNT_ROLES.map((role) => [role, ACCOUNT_ROLES.filter((needed) => roleCovers(role, needed))]));
    expect(covered).toEqual({
      auditor: ['auditor'],
      developer: ['auditor', 'developer'],
      admin: ['auditor', 'developer', 'admin'],
      owner: ['auditor', 'developer', 'admin', 'owner'],
    });
  });
});
