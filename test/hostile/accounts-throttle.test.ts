import { expect } from 'chai';
import { LOGIN_THROTTLE } from '../../accounts/login-throttle.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'correct horse battery';

/** A sign-in from a given client address (the gateway trusts X-Forwarded-For from loopback in this service). */
const loginFrom = (t: TestService, address: string, email: string, password: string) =>
  browser(t.url).post('/v1/auth/login', { email, password }, { 'x-forwarded-for': address });

describe('accounts: repeated failed sign-ins are slowed per account and per address', function () {
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_TRUSTED_PROXIES: 'loopback' });
  });
  after(async () => t?.close());

  it('failures for one account slow it down (Retry-After), from any address, even for the right password; other accounts are unaffected', async () => {
    const email = uniqueEmail('victim');
    expect((await browser(t.url).post('/v1/auth/signup', { name: 'V', email, password: PASSWORD })).status).to.equal(
      201,
    );
    for (let i = 0; i <= LOGIN_THROTTLE.freeFailures; i++) {
      expect((await loginFrom(t, `198.51.100.${i + 1}`, email, 'wrong password')).status).to.equal(401);
    }
    const slowed = await loginFrom(t, '198.51.100.200', email, PASSWORD);
    expect(slowed.status).to.equal(429);
    expect(Number(slowed.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(slowed.body.detail).to.match(/too many failed sign-ins for this account: wait/);
    // Another account from the same addresses is not affected.
    const other = uniqueEmail('other');
    await signUp(browser(t.url), { name: 'O', email: other, password: PASSWORD });
    expect((await loginFrom(t, '198.51.100.1', other, PASSWORD)).status).to.equal(200);
  });

  it('concurrent wrong passwords are counted exactly: at most the account limit reach the password check', async () => {
    const email = uniqueEmail('raced');
    await browser(t.url).post('/v1/auth/signup', { name: 'R', email, password: PASSWORD });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => loginFrom(t, `192.0.2.${i + 1}`, email, `wrong password ${i}`)),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked).to.be.at.most(LOGIN_THROTTLE.perAccount);
    expect(answers.filter((a) => a.status === 429).length).to.equal(40 - checked);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).to.equal(true);
  });

  it('after 30 failures from one address across accounts, that address answers 429; another address signs in', async () => {
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
