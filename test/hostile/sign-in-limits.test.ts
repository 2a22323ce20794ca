import { expect } from 'chai';
import { CLI_LOGIN_LIMITS } from '../../accounts/cli-logins.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * Issue 13 item 8, terminal sign-in as a script would abuse it: creating requests and
 * guessing confirmation codes are limited per client address (429, Retry-After, detail),
 * and the client address is what the trusted proxy saw, never what the client wrote.
 */

const USER_CODE = /^[A-Z]{4}-[A-Z]{4}$/;

describe('terminal sign-in is rate limited per client address', function () {
  this.timeout(120_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  /** A request through the trusted proxy (loopback) for `address`, which may carry a forged entry first. */
  const from = (forwarded: string) => ({ 'x-forwarded-for': forwarded });

  before(async () => {
    t = await startTestService({ SERVICE_TRUSTED_PROXIES: 'loopback' });
    admin = client(t.url, (await t.workspace('Approvers')).key);
  });
  after(async () => t?.close());

  it('creating sign-in requests past the limit answers 429 with Retry-After; forged X-Forwarded-For entries do not escape it', async () => {
    const answers = await Promise.all(
      Array.from({ length: CLI_LOGIN_LIMITS.create.limit + 15 }, (_, i) =>
        // a forged first entry changes every time; the proxy's own entry (rightmost) does not
        client(t.url).post('/v1/cli/logins', { client: 'x' }, from(`10.${i}.0.1, 203.0.113.50`)),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).to.have.length(CLI_LOGIN_LIMITS.create.limit);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).to.have.length(15);
    expect(Number(refused[0]!.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(refused[0]!.body.detail).to.match(/too many terminal sign-in requests from this address/);
    // another address is not affected
    const other = await client(t.url).post('/v1/cli/logins', { client: 'y' }, from('203.0.113.51'));
    expect(other.status).to.equal(201);
    expect(other.body.user_code).to.match(USER_CODE);
  });

  it('an IPv6 client is limited by its /64: rotating addresses inside it does not escape; another /64 is not affected', async () => {
    const answers = await Promise.all(
      Array.from({ length: CLI_LOGIN_LIMITS.create.limit + 5 }, (_, i) =>
        client(t.url).post('/v1/cli/logins', { client: 'v6' }, from(`2001:db8:77:1:${(i + 1).toString(16)}::1`)),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).to.have.length(CLI_LOGIN_LIMITS.create.limit);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).to.have.length(5);
    expect(refused[0]!.body.detail).to.match(/too many terminal sign-in requests from this address/);
    expect((await client(t.url).post('/v1/cli/logins', { client: 'v6' }, from('2001:db8:77:2::1'))).status).to.equal(
      201,
    );
    // an IPv4 client written IPv4-mapped is the same client as written plainly
    for (let i = 0; i < CLI_LOGIN_LIMITS.create.limit; i++)
      await client(t.url).post('/v1/cli/logins', { client: 'v4' }, from('198.51.100.60'));
    const mapped = await client(t.url).post('/v1/cli/logins', { client: 'v4' }, from('::ffff:198.51.100.60'));
    expect(mapped.status).to.equal(429);
  });

  it('guessing confirmation codes past the limit answers 429, on look-ups and decisions alike', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < CLI_LOGIN_LIMITS.lookUp.limit; i++)
      statuses.push((await admin.get(`/v1/cli/logins/BCDF-${'GHJK'}`, from('198.51.100.77'))).status);
    expect(statuses.every((s) => s === 404)).to.equal(true);
    const lookUp = await admin.get('/v1/cli/logins/BCDF-GHJM', from('198.51.100.77'));
    expect(lookUp.status).to.equal(429);
    expect(lookUp.body.detail).to.match(/too many confirmation code look-ups/);
    expect(lookUp.headers.get('retry-after')).to.match(/^\d+$/);
    const decide = await admin.post('/v1/cli/logins/BCDF-GHJM/approve', {}, from('198.51.100.77'));
    expect(decide.status).to.equal(429);
    expect((await admin.get('/v1/cli/logins/BCDF-GHJM', from('198.51.100.78'))).status).to.equal(404);
  });

  it("the client address recorded is the proxy's rightmost untrusted entry, not the client's own first entry", async () => {
    const made = await client(t.url).post('/v1/cli/logins', { client: 'z' }, from('6.6.6.6, 192.0.2.44'));
    expect(made.status).to.equal(201);
    const seen = await admin.get(`/v1/cli/logins/${made.body.user_code}`, from('192.0.2.45'));
    expect(seen.status).to.equal(200);
    expect(seen.body.client_address).to.equal('192.0.2.44');
  });
});

describe('without trusted proxies X-Forwarded-For is ignored', function () {
  this.timeout(60_000);
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(async () => t?.close());

  it('the socket address is the client address', async () => {
    const admin = client(t.url, (await t.workspace('Solo')).key);
    const made = await client(t.url).post('/v1/cli/logins', { client: 'z' }, { 'x-forwarded-for': '6.6.6.6' });
    const seen = await admin.get(`/v1/cli/logins/${made.body.user_code}`);
    expect(seen.body.client_address).to.match(/127\.0\.0\.1/);
  });
});
