import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'correct horse battery';

/**
 * Issue 22 item 7: sign-up of a new address signs the browser in (201 with the session
 * cookie, as the spec's row says); an address that already has an account answers 409
 * saying to sign in, and that answer is behind the sign-up throttle like every attempt.
 */
describe('accounts: sign-up signs in; an existing address gets 409 behind the throttle', function () {
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_SIGNUPS_PER_HOUR: '5' });
  });
  after(async () => t?.close());

  it('a new address answers 201 with the session cookie: the browser is signed in, needing onboarding', async () => {
    const email = uniqueEmail('fresh');
    const b = browser(t.url);
    const r = await signUp(b, { name: 'New', email, password: PASSWORD });
    expect(r.status).to.equal(201);
    expect(r.body.user).to.include({ email, name: 'New' });
    expect(r.body.needs_onboarding).to.equal(true);
    expect(r.headers.get('set-cookie')).to.match(/^crucible_session=[^;]+;.*HttpOnly/);
    const me = await b.get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.user.email).to.equal(email);
    expect(me.body.needs_onboarding).to.equal(true);
    // no second sign-in: onboarding works on the sign-up's own session
    expect((await b.post('/v1/onboarding/workspace', { organization: 'Fresh Co' })).status).to.equal(201);
  });

  it('an address that already has an account answers 409 saying to sign in, with no cookie, and changes nothing', async () => {
    const existing = uniqueEmail('taken');
    expect((await signUp(browser(t.url), { name: 'Owner', email: existing, password: PASSWORD })).status).to.equal(201);
    const before = await t.svc.adapters.store.findOne<any>(Collections.users, { email: existing });

    const attacker = browser(t.url);
    const r = await attacker.post('/v1/auth/signup', {
      name: 'Probe',
      email: existing.toUpperCase(),
      password: 'attacker password',
    });
    expect(r.status).to.equal(409);
    expect(r.body.detail).to.match(/already exists: sign in with its password/);
    expect(r.headers.get('set-cookie')).to.equal(null);
    expect(attacker.session).to.equal(null);

    const after = await t.svc.adapters.store.findOne<any>(Collections.users, { email: existing });
    expect(after).to.deep.equal(before);
    expect((await attacker.post('/v1/auth/login', { email: existing, password: 'attacker password' })).status).to.equal(
      401,
    );
    expect((await browser(t.url).post('/v1/auth/login', { email: existing, password: PASSWORD })).status).to.equal(200);
  });

  it('over SERVICE_SIGNUPS_PER_HOUR attempts from one address answer 429, existing addresses included: probing costs attempts', async () => {
    const known = (await t.svc.adapters.store.find<any>(Collections.users, {}, { limit: 1 }))[0]!.email as string;
    // every attempt counts, 409s included; the earlier tests used some of this hour's 5 (or the window turned)
    let last = await browser(t.url).post('/v1/auth/signup', { name: 'N', email: known, password: PASSWORD });
    for (let i = 0; i < 6 && last.status === 409; i++)
      last = await browser(t.url).post('/v1/auth/signup', { name: 'N', email: known, password: PASSWORD });
    expect(last.status).to.equal(429);
    expect(Number(last.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(last.body.detail).to.match(/too many sign-ups from this address.*try again in \d+ seconds/);
    // over the limit, neither a known nor a new address learns anything, and nothing is created
    const email = uniqueEmail('blocked');
    const blocked = await browser(t.url).post('/v1/auth/signup', { name: 'B', email, password: PASSWORD });
    expect(blocked.status).to.equal(429);
    expect(blocked.body.detail).to.match(/too many sign-ups from this address/);
    expect(await t.svc.adapters.store.count(Collections.users, { email })).to.equal(0);
  });
});
