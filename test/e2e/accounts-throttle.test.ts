import { expect } from 'chai';
import { LOGIN_THROTTLE } from '../../accounts/login-throttle.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'correct horse battery';

/** A sign-in from a given client address (the gateway trusts X-Forwarded-For in this service). */
const loginFrom = (t: TestService, address: string, email: string, password: string) =>
  browser(t.url).post('/v1/auth/login', { email, password }, { 'x-forwarded-for': address });

describe('accounts: repeated failed sign-ins are slowed per account and per address', function () {
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_TRUST_PROXY: 'true' });
  });
  after(async () => t?.close());

  it('after 5 failures for one account, even the right password answers 429 with Retry-After, from any address', async () => {
    const email = uniqueEmail('victim');
    expect((await signUp(browser(t.url), { name: 'V', email, password: PASSWORD })).status).to.equal(200);
    for (let i = 0; i < LOGIN_THROTTLE.perAccount; i++) {
      expect((await loginFrom(t, `198.51.100.${i + 1}`, email, 'wrong password')).status).to.equal(401);
    }
    const blocked = await loginFrom(t, '198.51.100.200', email, PASSWORD);
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(blocked.body.detail).to.match(/too many/);
    // Another account from the same addresses is not affected.
    const other = uniqueEmail('other');
    await signUp(browser(t.url), { name: 'O', email: other, password: PASSWORD });
    expect((await loginFrom(t, '198.51.100.1', other, PASSWORD)).status).to.equal(200);
  });

  it('after 20 failures from one address across accounts, that address answers 429; another address signs in', async () => {
    const email = uniqueEmail('bystander');
    await signUp(browser(t.url), { name: 'B', email, password: PASSWORD });
    for (let i = 0; i < LOGIN_THROTTLE.perAddress; i++) {
      expect((await loginFrom(t, '203.0.113.9', uniqueEmail('guess'), 'wrong password')).status).to.equal(401);
    }
    const blocked = await loginFrom(t, '203.0.113.9', email, PASSWORD);
    expect(blocked.status).to.equal(429);
    expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    expect((await loginFrom(t, '203.0.113.10', email, PASSWORD)).status).to.equal(200);
  });
});
