import { expect } from 'chai';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { EventLog, type ServiceEvent } from '../../core/event-log.js';
import { appendMessage, appendMessages, finish, insertStreamOwner, setStatus } from '../support/event-producer.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { connect, type SseItem } from '../support/sse.js';

/** Ids of the events received, in order. */
const ids = (items: SseItem[]) => items.map((i) => i.event.event_id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('event streams over HTTP (server-sent events)', function () {
  let t: TestService;
  let key: string;
  let projectId: string;
  let log: EventLog;

  before(async () => {
    // a short heartbeat so the comment lines and the document re-check show up quickly
    t = await startTestService({ SERVICE_SSE_HEARTBEAT_MS: '150' });
    ({ key, projectId } = await t.workspace('Events'));
    log = new EventLog(t.svc.adapters.store, t.svc.adapters.bus);
  });
  after(async () => t?.close());

  const store = () => t.svc.adapters.store;
  const jobUrl = (id: string) => `${t.url}/v1/jobs/${id}/events`;
  const runUrl = (id: string) => `${t.url}/v1/runs/${id}/events`;

  it('replays the log, then forwards live events, each a JSON object on a data: line with id: = event_id', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId);
    await appendMessages(log, job, projectId, 3);
    const sse = await connect(jobUrl(job), key);
    try {
      expect(sse.status).to.equal(200);
      expect(sse.headers.get('content-type')).to.match(/^text\/event-stream/);
      // the client accepts gzip, but a compressor would hold events back until its block fills
      expect(sse.headers.get('content-encoding')).to.equal(null);
      const replayed = await sse.collect(3);
      await appendMessages(log, job, projectId, 2);
      const live = await sse.collect(2);
      expect(ids([...replayed, ...live])).to.deep.equal([1, 2, 3, 4, 5]);
      for (const item of [...replayed, ...live]) {
        expect(item.id).to.equal(String(item.event.event_id));
        expect(item.event).to.have.all.keys(
          'event_id',
          'type',
          'summary',
          'created_at',
          'stream',
          'episode_id',
          'actor_id',
          'goal_version',
          'data',
        );
        expect(item.event).to.include({
          stream: job,
          type: 'agent.message',
          episode_id: 'ep_test',
          actor_id: 'support',
          goal_version: null,
        });
      }
      expect(live[1]!.event.data).to.deep.equal({ text: 'message 2' }); // the second batch numbers from 1 again
    } finally {
      sse.close();
    }
  });

  it('sends comment heartbeats while nothing happens', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId);
    const sse = await connect(jobUrl(job), key);
    try {
      await sse.commentCount(3);
      expect(sse.comments[0]).to.equal('connected');
      expect(sse.comments.slice(1, 3)).to.deep.equal(['heartbeat', 'heartbeat']);
    } finally {
      sse.close();
    }
  });

  it('repairs a publish that never happened at the next heartbeat, from the log', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId);
    const sse = await connect(jobUrl(job), key);
    try {
      await sse.commentCount(1);
      // stored, then published on a bus this gateway does not listen to (as if the producer died before publishing)
      await appendMessage(new EventLog(store(), new MemoryBus()), job, projectId, 1);
      const [item] = await sse.collect(1);
      expect(item!.event).to.include({ event_id: 1, type: 'agent.message' });
      expect(sse.comments).to.include('heartbeat');
    } finally {
      sse.close();
    }
  });

  for (const how of ['cursor', 'Last-Event-ID'] as const) {
    it(`resumes by ${how} after a reconnect in the middle of a live run: nothing lost, nothing repeated`, async () => {
      const run = await insertStreamOwner(store(), 'run', projectId);
      const total = 80;
      const producing = (async () => {
        await appendMessages(log, run, projectId, total, 3);
        await finish(store(), log, 'run', run, projectId, 'finished');
      })();
      const first = await connect(runUrl(run), key);
      const before = await first.collect(25);
      first.close();
      const resumeAt = before[before.length - 1]!.event.event_id;
      const second = await connect(
        runUrl(run),
        key,
        how === 'cursor' ? { cursor: resumeAt } : { lastEventId: resumeAt },
      );
      const after = await second.collect();
      await producing;
      const all = [...before, ...after];
      const end = all[all.length - 1]!.event;
      expect(end.type).to.equal('stream.end');
      expect(end.data).to.deep.equal({ status: 'finished', kind: 'run' });
      // 80 messages, run.finished, then stream.end: every id once, in order
      expect(ids(all)).to.deep.equal(range(1, total + 2));
      expect(all[total]!.event.type).to.equal('run.finished');
      expect(await second.next()).to.equal(null);
    });
  }

  it('resumes after the larger of cursor and Last-Event-ID when both are sent', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId, 'succeeded');
    await appendMessages(log, job, projectId, 6);
    const sse = await connect(jobUrl(job), key, { cursor: 2, lastEventId: 4 });
    expect(ids(await sse.collect())).to.deep.equal([5, 6, 7]);
  });

  it('ends a stream of an already ended job at once with stream.end, stored once and resumable', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId, 'succeeded');
    await appendMessages(log, job, projectId, 2);
    const sse = await connect(jobUrl(job), key);
    const items = await sse.collect();
    expect(ids(items)).to.deep.equal([1, 2, 3]);
    expect(items[2]!.event).to.include({ type: 'stream.end', stream: job });
    expect(items[2]!.event.data).to.deep.equal({ status: 'succeeded', kind: 'job' });
    expect(await sse.next()).to.equal(null);

    // resuming after the end, or replaying from the start, repeats no real event and writes no second end
    const again = await connect(jobUrl(job), key, { lastEventId: 3 });
    expect((await again.collect()).map((i) => [i.event.event_id, i.event.type])).to.deep.equal([[3, 'stream.end']]);
    const replay = await connect(jobUrl(job), key);
    expect(ids(await replay.collect())).to.deep.equal([1, 2, 3]);
    const page = await client(t.url, key).get(`/v1/streams/${job}/events/page`);
    expect(page.body.map((e: ServiceEvent) => e.type)).to.deep.equal(['agent.message', 'agent.message', 'stream.end']);
  });

  it('ends with stream.end when the job ends while the client is connected', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId);
    const sse = await connect(jobUrl(job), key);
    await appendMessage(log, job, projectId, 1);
    expect(ids(await sse.collect(1))).to.deep.equal([1]);
    await finish(store(), log, 'job', job, projectId, 'failed');
    const rest = await sse.collect();
    expect(rest.map((i) => i.event.type)).to.deep.equal(['job.status_changed', 'stream.end']);
    expect(rest[1]!.event.data).to.deep.equal({ status: 'failed', kind: 'job' });
    expect(await sse.next()).to.equal(null);
  });

  it('ends when only the document shows the end (the terminal event never came), found by the heartbeat re-check', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId);
    const sse = await connect(jobUrl(job), key);
    await appendMessage(log, job, projectId, 1);
    await sse.collect(1);
    await setStatus(store(), 'job', job, 'cancelled');
    const rest = await sse.collect();
    expect(rest.map((i) => [i.event.event_id, i.event.type])).to.deep.equal([[2, 'stream.end']]);
    expect(rest[0]!.event.data).to.deep.equal({ status: 'cancelled', kind: 'job' });
  });

  it('keeps a retried job open past its earlier stream.end and ends it again when it ends again', async () => {
    const job = await insertStreamOwner(store(), 'job', projectId, 'failed');
    await appendMessage(log, job, projectId, 1);
    const first = await connect(jobUrl(job), key);
    expect(ids(await first.collect())).to.deep.equal([1, 2]);
    // retry: the job runs again and says so
    await setStatus(store(), 'job', job, 'running');
    await log.append({
      stream: job,
      project_id: projectId,
      type: 'job.status_changed',
      summary: 'retried',
      data: { status: 'running', previous: 'failed' },
    });
    const sse = await connect(jobUrl(job), key);
    const seen = await sse.collect(2);
    expect(seen.map((i) => [i.event.event_id, i.event.type])).to.deep.equal([
      [1, 'agent.message'],
      [3, 'job.status_changed'],
    ]);
    await sse.commentCount(3); // a few heartbeats pass and the stream stays open
    await finish(store(), log, 'job', job, projectId, 'succeeded');
    const rest = await sse.collect();
    expect(rest.map((i) => [i.event.event_id, i.event.type])).to.deep.equal([
      [4, 'job.status_changed'],
      [5, 'stream.end'],
    ]);
  });

  it('answers 404 for unknown streams and streams of another project, 403 without evaluator, 422 for a bad Last-Event-ID', async () => {
    const other = await t.workspace('Other');
    const theirJob = await insertStreamOwner(store(), 'job', other.projectId);
    const theirRun = await insertStreamOwner(store(), 'run', other.projectId);
    const api = client(t.url, key);
    for (const path of [
      `/v1/jobs/${theirJob}/events`,
      `/v1/runs/${theirRun}/events`,
      `/v1/streams/${theirJob}/events/page`,
      `/v1/streams/${theirRun}/events/page`,
      '/v1/jobs/job_nope/events',
      '/v1/runs/run_nope/events',
      '/v1/streams/nope/events/page',
    ]) {
      const r = await api.get(path);
      expect(r.status, path).to.equal(404);
      expect(r.body.detail, path).to.be.a('string');
    }
    // a job id is not a run id
    expect((await api.get(`/v1/runs/${await insertStreamOwner(store(), 'job', projectId)}/events`)).status).to.equal(
      404,
    );

    const mine = await insertStreamOwner(store(), 'job', projectId);
    for (const scopes of [['read'], ['write']] as const) {
      const weak = client(t.url, await t.key(projectId, [...scopes]));
      expect((await weak.get(`/v1/jobs/${mine}/events`)).status, scopes[0]).to.equal(403);
      expect((await weak.get(`/v1/streams/${mine}/events/page`)).status, scopes[0]).to.equal(403);
    }
    const evaluator = await connect(jobUrl(mine), await t.key(projectId, ['evaluator']));
    expect(evaluator.status).to.equal(200);
    evaluator.close();

    const bad = await connect(jobUrl(mine), key, { lastEventId: 'abc' });
    expect(bad.status).to.equal(422);
    expect(bad.error).to.deep.equal({
      detail: [
        { field: 'header.Last-Event-ID', message: 'must be a whole number >= 0 (an event_id this stream sent)' },
      ],
    });
  });

  it('pages events by cursor and limit (default 500, at most 1000)', async () => {
    const run = await insertStreamOwner(store(), 'run', projectId);
    await appendMessages(log, run, projectId, 12);
    const api = client(t.url, key);
    const all = await api.get(`/v1/streams/${run}/events/page`);
    expect(all.status).to.equal(200);
    expect(all.body.map((e: ServiceEvent) => e.event_id)).to.deep.equal(range(1, 12));
    const page = await api.get(`/v1/streams/${run}/events/page?cursor=4&limit=5`);
    expect(page.body.map((e: ServiceEvent) => e.event_id)).to.deep.equal(range(5, 9));
    expect((await api.get(`/v1/streams/${run}/events/page?cursor=12`)).body).to.deep.equal([]);
    expect((await api.get(`/v1/streams/${run}/events/page?limit=1000`)).body).to.have.length(12);
    for (const q of ['limit=1001', 'limit=0', 'cursor=-1', 'cursor=x']) {
      const r = await api.get(`/v1/streams/${run}/events/page?${q}`);
      expect(r.status, q).to.equal(422);
      expect(r.body.detail[0].field, q).to.match(/^query\./);
    }
  });

  it('a run stream ends on run.finished', async () => {
    const run = await insertStreamOwner(store(), 'run', projectId);
    const sse = await connect(runUrl(run), key);
    await appendMessages(log, run, projectId, 3);
    await finish(store(), log, 'run', run, projectId, 'cancelled');
    const items = await sse.collect();
    expect(items.map((i) => i.event.type)).to.deep.equal([
      'agent.message',
      'agent.message',
      'agent.message',
      'run.finished',
      'stream.end',
    ]);
    expect(items[4]!.event.data).to.deep.equal({ status: 'cancelled', kind: 'run' });
  });
});
