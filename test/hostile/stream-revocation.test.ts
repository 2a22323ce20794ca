import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Collections } from '../../core/collections.js';
import { EventLog } from '../../core/event-log.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { appendMessage, insertStreamOwner } from '../support/event-producer.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { connect, type SseConnection } from '../support/sse.js';

/** Two gateways on one store, bus and lease store, as compose.yaml runs them. */
const SHARED = {
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  // ten minutes: within these tests no heartbeat re-reads anything
  SERVICE_SSE_HEARTBEAT_MS: '600000',
};

/** The frames of a connection until the server closes it. */
async function untilClosed(sse: SseConnection): Promise<Array<{ name: string | undefined; data: any }>> {
  const out: Array<{ name: string | undefined; data: any }> = [];
  for await (const item of sse) out.push({ name: item.name, data: item.event });
  return out;
}

/**
 * Spec section 5 rule 4: a revoked key answers 401 "at once, everywhere", and that includes
 * the event streams it opened before. A stream ends with a final `unauthenticated` frame
 * (docs/events.md) when its key is revoked or its console session signs out or expires,
 * on the gateway where that happened and on every other one; reconnecting answers 401.
 */
describe('hostile: an event stream outliving its credential', function () {
  this.timeout(120_000);
  let a: TestService;
  let b: TestService;

  before(async () => {
    const env = { ...SHARED, REDIS_PREFIX: `crucible-revocation-${randomUUID()}:` };
    a = await startTestService(env);
    // the second installation's roles on the first one's data folder: the same SQLite store
    b = await startTestService(env, undefined, a.dataDir);
  });
  after(async () => {
    await b?.svc.close();
    await a?.close();
  });

  async function openRun(projectId: string): Promise<{ run: string; log: EventLog }> {
    const run = await insertStreamOwner(a.svc.adapters.store, 'run', projectId);
    return { run, log: new EventLog(a.svc.adapters.store, a.svc.adapters.bus) };
  }

  it('a key revoked through one gateway ends its stream on the other, and the reconnect answers 401', async () => {
    const { key: admin, projectId } = await a.workspace('Revoke across');
    const made = await client(a.url, admin).post('/v1/api-keys', { name: 'streamer', scopes: ['evaluator'] });
    expect(made.status).to.equal(201);
    const other = await a.key(projectId, ['evaluator'], 'bystander');
    const { run, log } = await openRun(projectId);

    const doomed = await connect(`${b.url}/v1/runs/${run}/events`, made.body.api_key);
    const bystander = await connect(`${b.url}/v1/runs/${run}/events`, other);
    expect([doomed.status, bystander.status]).to.deep.equal([200, 200]);
    await Promise.all([doomed.commentCount(1), bystander.commentCount(1)]);
    await appendMessage(log, run, projectId, 1);
    expect((await doomed.next())?.event.event_id).to.equal(1);

    expect((await client(a.url, admin).del(`/v1/api-keys/${made.body.id}`)).status).to.equal(200);
    const rest = await untilClosed(doomed);
    expect(rest).to.deep.equal([
      { name: 'unauthenticated', data: { status: 401, detail: 'this API key was revoked' } },
    ]);

    // the other key's stream on the same run goes on
    await appendMessage(log, run, projectId, 2);
    const seen = await bystander.collect(2);
    expect(seen.map((i) => i.event.event_id)).to.deep.equal([1, 2]);
    bystander.close();

    const again = await connect(`${b.url}/v1/runs/${run}/events`, made.body.api_key, { cursor: 1 });
    expect(again.status).to.equal(401);
    expect((again.error as { detail: string }).detail).to.match(/revoked/);
  });

  it('a key revoked with no announcement (a store write only) still ends its stream, by the re-check', async () => {
    const { projectId } = await a.workspace('Silent revoke');
    const key = await a.key(projectId, ['evaluator'], 'silent');
    const { run } = await openRun(projectId);
    const sse = await connect(`${b.url}/v1/runs/${run}/events`, key);
    expect(sse.status).to.equal(200);
    await sse.commentCount(1);
    const doc = await a.svc.adapters.store.findOne(Collections.apiKeys, { project_id: projectId, name: 'silent' });
    await a.svc.adapters.store.update(Collections.apiKeys, doc!._id, { revoked_at: new Date().toISOString() });
    expect(await untilClosed(sse)).to.deep.equal([
      { name: 'unauthenticated', data: { status: 401, detail: 'this API key was revoked' } },
    ]);
  });

  it('signing out on one gateway ends the session’s stream on the other', async () => {
    const person = browser(a.url);
    const signed = await signUp(person, {
      name: 'Streamer',
      email: uniqueEmail('stream'),
      password: 'long enough pass',
    });
    expect(signed.status).to.be.oneOf([200, 201]);
    const ws = await person.post('/v1/onboarding/workspace', { organization: 'Signed out' });
    expect(ws.status).to.equal(201);
    const me = await person.get('/v1/me');
    const { run } = await openRun(me.body.project_id);
    const sse = await connect(`${b.url}/v1/runs/${run}/events`, '', {
      headers: { cookie: `crucible_session=${person.session}` },
    });
    expect(sse.status).to.equal(200);
    await sse.commentCount(1);
    const token = person.session;
    expect((await person.del('/v1/session')).status).to.equal(200);
    const rest = await untilClosed(sse);
    expect(rest).to.have.length(1);
    expect(rest[0]!.name).to.equal('unauthenticated');
    expect(rest[0]!.data.status).to.equal(401);
    expect(rest[0]!.data.detail).to.match(/session has ended/);
    const again = await connect(`${b.url}/v1/runs/${run}/events`, '', {
      headers: { cookie: `crucible_session=${token}` },
    });
    expect(again.status).to.equal(401);
  });

  it('a console session that expires ends its stream', async () => {
    const person = browser(a.url);
    const signed = await signUp(person, {
      name: 'Expiring',
      email: uniqueEmail('expire'),
      password: 'long enough pass',
    });
    await person.post('/v1/onboarding/workspace', { organization: 'Expiring' });
    const me = await person.get('/v1/me');
    const { run } = await openRun(me.body.project_id);
    const sse = await connect(`${b.url}/v1/runs/${run}/events`, '', {
      headers: { cookie: `crucible_session=${person.session}` },
    });
    expect(sse.status).to.equal(200);
    await sse.commentCount(1);
    await a.svc.adapters.store.update(Collections.sessions, signed.body.session.id, {
      expires_at: new Date(Date.now() + 500).toISOString(),
    });
    const rest = await untilClosed(sse);
    expect(rest.map((r) => r.name)).to.deep.equal(['unauthenticated']);
    expect(rest[0]!.data.detail).to.match(/expired/);
  });
});
