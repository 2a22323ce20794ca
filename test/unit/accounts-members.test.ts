import { expect } from 'chai';
import { refusalOf } from '../../accounts/members.js';

/** Who may move whom between roles (accounts/members.ts): the table of docs/accounts.md, "Members and roles". */
describe('accounts: who may change a member', () => {
  const roles = ['owner', 'admin', 'member'] as const;
  const targets = [...roles, null] as const;

  it('an owner may make any change, to anyone', () => {
    for (const before of roles) for (const after of targets) expect(refusalOf('owner', before, after)).to.equal(null);
  });

  it('admins and admin keys manage members and admins, but never make or touch an owner', () => {
    for (const actor of ['admin', 'key'] as const) {
      for (const before of ['admin', 'member'] as const)
        for (const after of ['admin', 'member', null] as const) expect(refusalOf(actor, before, after)).to.equal(null);
      expect(refusalOf(actor, 'member', 'owner')).to.match(/only an owner can make someone an owner/);
      expect(refusalOf(actor, 'admin', 'owner')).to.match(/only an owner can make someone an owner/);
      for (const after of targets) expect(refusalOf(actor, 'owner', after)).to.match(/only an owner can remove/);
    }
  });

  it('a member changes nobody, not even themself', () => {
    for (const before of roles)
      for (const after of targets) expect(refusalOf('member', before, after)).to.be.a('string');
  });
});
