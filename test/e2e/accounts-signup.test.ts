import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'correct horse battery';

/** Issue 13 item 5: sign-up tells no one which addresses have accounts, and is throttled per client address. */
describe('accounts: sign-up without enumeration, throttled per address', function () {
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_SIGNUPS_PER_HOUR: '5' });
  });
  after(async () => t?.close());

  it('a sign-up for an existing address answers exactly like one for a new address, and changes nothing', async () => {
    const existing = uniqueEmail('taken');
    const owner = browser(t.url);
    expect((await signUp(owner, { name: 'Owner', email: existing, password: PASSWORD })).status).to.equal(200);
    const before = await t.svc.adapters.store.findOne<any>(Collections.users, { email: existing });

    const fresh = browser(t.url);
    const a = await fresh.post('/v1/auth/signup', { name: 'New', email: uniqueEmail('fresh'), password: PASSWORD });
    const attacker = browser(t.url);
    const b = await attacker.post('/v1/auth/signup', { name: 'Probe', email: existing, password: 'attacker password' });
    expect(a.status).to.equal(201);
    expect(b.status).to.equal(a.status);
    expect(Object.keys(b.body).sort()).to.deep.equal(Object.keys(a.body).sort());
    expect(b.body.detail).to.equal(a.body.detail);
    expect(b.headers.get('set-cookie')).to.equal(null);
    expect(a.headers.get('set-cookie')).to.equal(null);

    // the existing account is untouched: its password still signs in, the prober's does not
    const after = await t.svc.adapters.store.findOne<any>(Collections.users, { email: existing });
    expect(after).to.deep.equal(before);
    expect((await attacker.post('/v1/auth/login', { email: existing, password: 'attacker password' })).status).to.equal(
      401,
    );
    expect((await browser(t.url).post('/v1/auth/login', { email: existing, password: PASSWORD })).status).to.equal(200);
  });

  it('over SERVICE_SIGNUPS_PER_HOUR attempts from one address answer 429 with Retry-After and create nothing', async () => {
    // the first test made 3 attempts from 127.0.0.1 within this hour's window (or the window turned)
    let last = await browser(t.url).post('/v1/auth/signup', { name: 'N', email: uniqueEmail('n'), password: PASSWORD });
    for (let i = 0; i < 5 && last.status === 201; i++)
      last = await browser(t.url).post('/v1/auth/signup', { name: 'N', email: uniqueEmail('n'), password: PASSWORD });
    expect(last.status).to.equal(429);
    expect(Number(last.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(last.body.detail).to.match(/too many sign-ups from this address.*try again in \d+ seconds/);
    const email = uniqueEmail('blocked');
    const blocked = await browser(t.url).post('/v1/auth/signup', { name: 'B', email, password: PASSWORD });
    expect(blocked.status).to.equal(429);
    expect(await t.svc.adapters.store.count(Collections.users, { email })).to.equal(0);
  });
});
