import { expect } from 'chai';
import { Placement } from '../../scheduler/runs/shards/placement.js';
import type { WorkerRecord } from '../../scheduler/workers.js';

/** A worker registry that answers `workers` as the live ones (Placement reads nothing else). */
function depsWith(workers: WorkerRecord[]): { live: () => Promise<WorkerRecord[]> } {
  return { live: async () => workers };
}

const worker = (id: string, capacity: number, active = 0): WorkerRecord => ({
  id,
  address: `127.0.0.1:${id.length}`,
  capacity,
  active,
  last_seen_ms: Date.now(),
  incarnation: 'first',
  sandbox: 'docker',
  isolates: ['data', 'environment', 'network', 'source'],
  runs_tenant_code: true,
});

describe('placement of episodes on world-workers', () => {
  it('reserves on the worker with the most free places; its own placements count until a heartbeat reports more', async () => {
    // free = capacity - max(active in the last heartbeat, placed by this scheduler)
    const p = new Placement(depsWith([worker('a', 2), worker('b', 3, 1)]));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(((await p.reserve()) as WorkerRecord).id);
    expect(ids).to.deep.equal(['a', 'b', 'b', 'a', 'b']);
    expect(await p.reserve()).to.equal('full');
    p.release('a');
    expect(((await p.reserve()) as WorkerRecord).id).to.equal('a');
  });

  it('gives tenant code only to workers that reported they run it (a child-process worker never); operator code to any', async () => {
    const child = { ...worker('p', 8), sandbox: 'process', isolates: [], runs_tenant_code: false };
    const p = new Placement(depsWith([child, worker('c', 1)]));
    expect(((await p.reserve('tenant')) as WorkerRecord).id).to.equal('c');
    expect(await p.reserve('tenant')).to.equal('full'); // the only worker that runs it is full; p has 8 places
    expect(((await p.reserve('operator')) as WorkerRecord).id).to.equal('p');
    expect(await p.capacity('tenant')).to.equal(1);
    expect(await p.capacity('operator')).to.equal(9);
    const alone = new Placement(depsWith([child]));
    expect(await alone.reserve('tenant')).to.equal('none');
    expect(await alone.reserve()).to.equal('none'); // without a word, code counts as the tenant's
    // a record of an older release, which reported nothing, is given operator code only
    const old = { ...worker('o', 2) } as Partial<WorkerRecord>;
    delete old.runs_tenant_code;
    expect(await new Placement(depsWith([old as WorkerRecord])).reserve('tenant')).to.equal('none');
  });

  it('answers none when no worker is live', async () => {
    expect(await new Placement(depsWith([])).reserve()).to.equal('none');
  });

  it('passes over a worker that is shutting down, and remembers that it said so', async () => {
    const p = new Placement(depsWith([worker('a', 5), worker('b', 1)]));
    expect(p.isLeaving('a')).to.equal(false);
    p.leaving('a');
    expect(p.isLeaving('a')).to.equal(true);
    expect(p.isLeaving('b')).to.equal(false);
    expect(((await p.reserve()) as WorkerRecord).id).to.equal('b');
    expect(await p.reserve()).to.equal('full');
  });

  it('is shared by the shards of one scheduler: what one shard learned, the others know', () => {
    // the shards of one scheduler all use its one Placement (SchedulerDeps.placement)
    const scheduler = new Placement(depsWith([worker('a', 5)]));
    const [shard1, shard2] = [scheduler, scheduler];
    shard1.leaving('a');
    expect(shard2.isLeaving('a')).to.equal(true);
    expect(new Placement(depsWith([worker('a', 5)])).isLeaving('a')).to.equal(false);
  });

  it('passes over a worker a call found unreachable at once, until it is heard from again or restarts', async () => {
    const a = { ...worker('a', 5), last_seen_ms: Date.now() - 1_000 };
    const workers = [a, worker('b', 1)];
    const p = new Placement(depsWith(workers));
    p.down('a');
    expect(((await p.reserve()) as WorkerRecord).id).to.equal('b');
    expect(await p.reserve()).to.equal('full');
    // a heartbeat (or a new registration) after the failure makes it a candidate again
    workers[0] = { ...a, last_seen_ms: Date.now() + 1, incarnation: 'second' };
    await new Promise((r) => setTimeout(r, 300)); // the live list is re-read every 250 ms
    expect(((await p.reserve()) as WorkerRecord).id).to.equal('a');
    p.down('a');
    p.up('a');
    expect(((await p.reserve()) as WorkerRecord).id).to.equal('a');
  });

  it('wakes shards waiting for a place one per freed place, oldest first; a place given back unused wakes none', async () => {
    const p = new Placement(depsWith([worker('a', 1)]));
    expect(await p.reserve()).to.not.equal('full');
    const woken: string[] = [];
    const first = p.waitForPlace(60_000).then(() => woken.push('first'));
    const second = p.waitForPlace(60_000).then(() => woken.push('second'));
    p.unreserve('a'); // reserved, then not used: nothing changed for the waiters
    await new Promise((r) => setImmediate(r));
    expect(woken).to.deep.equal([]);
    expect(await p.reserve()).to.not.equal('full');
    p.release('a'); // its episode ended: one waiter, the oldest
    await first;
    expect(woken).to.deep.equal(['first']);
    p.release('a');
    await second;
    expect(woken).to.deep.equal(['first', 'second']);
  });

  it('a wait for a place ends on its own after its time, and then no longer counts as waiting', async () => {
    const p = new Placement(depsWith([worker('a', 1)]));
    await p.waitForPlace(5);
    const later = p.waitForPlace(60_000);
    p.release('a'); // goes to the one still waiting, not to the wait that timed out
    await later;
  });

  it('a wait for a place ended by its signal (the shard was stopped or paused) no longer counts as waiting', async () => {
    const p = new Placement(depsWith([worker('a', 1)]));
    expect(await p.reserve()).to.not.equal('full');
    const over = new AbortController();
    const stopped = p.waitForPlace(60_000, over.signal);
    const other = p.waitForPlace(60_000);
    expect(p.waiting).to.equal(2);
    over.abort();
    await stopped;
    expect(p.waiting).to.equal(1);
    p.release('a'); // goes to the shard still waiting, not to the one that left
    await other;
    expect(p.waiting).to.equal(0);
    await p.waitForPlace(60_000, over.signal); // a signal aborted already: no wait at all
    expect(p.waiting).to.equal(0);
  });

  it('a fresh read of the live workers that shows free places wakes as many waiters as there are places', async () => {
    // the heartbeat counted an episode that has ended since: no release of ours announces that place
    const workers = [worker('a', 2, 2)];
    const p = new Placement(depsWith(workers));
    expect(await p.reserve()).to.equal('full');
    const woken: number[] = [];
    const waits = [1, 2, 3].map((i) => p.waitForPlace(60_000).then(() => woken.push(i)));
    workers[0] = { ...workers[0]!, active: 1 }; // the next heartbeat: one place free
    await new Promise((r) => setTimeout(r, 300)); // past the live-worker cache
    await p.live();
    await new Promise((r) => setImmediate(r));
    expect(woken).to.deep.equal([1]);
    p.release('a');
    p.release('a');
    await Promise.all(waits);
  });
});
