import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NatsBus } from '../../core/adapters/nats-bus.js';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { eventBusContract } from './event-bus.contract.js';

const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const START =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log';

eventBusContract('NatsBus', async () => {
  const root = `crucible.test.${randomBytes(6).toString('hex')}`;
  const connect = () =>
    // the test job's own prefix (test/support/job.ts): the contract holds under a prefix too
    NatsBus.connect(url, { name: 'crucible-contract-test', prefix: process.env.NATS_PREFIX }).catch((err: Error) => {
      throw new Error(
        `NATS with JetStream is not reachable at ${url} (${err.message}); this suite needs it. Start it with: ${START}`,
      );
    });
  const open = [await connect()];
  const peer = async () => open[open.push(await connect()) - 1]!;
  const cleanup = async () => {
    await open[0]!.purge(`${root}.>`);
    await Promise.all(open.map((b) => b.close()));
  };
  return { bus: open[0]!, root, peer, cleanup };
});

describe('NATS_PREFIX: several installations on one NATS', function () {
  this.timeout(30_000);

  it('two installations with their own prefix publish on the same subjects and see only their own events', async () => {
    const tag = randomBytes(4).toString('hex');
    const dirs = [
      mkdtempSync(path.join(tmpdir(), 'crucible-nats-a-')),
      mkdtempSync(path.join(tmpdir(), 'crucible-nats-b-')),
    ];
    // each opens its engines as an installation does: from its configuration
    const installations = await Promise.all(
      ['a', 'b'].map((name, i) =>
        chooseAdapters(
          loadConfig({
            SERVICE_DATA_DIR: dirs[i]!,
            NATS_URL: url,
            NATS_PREFIX: `${process.env.NATS_PREFIX ?? 't'}iso${tag}${name}`,
          }),
        ),
      ),
    );
    try {
      const seen: string[][] = [[], []];
      const subject = `crucible.runs.run_${tag}.events`;
      await Promise.all(
        installations.map((inst, i) =>
          inst.bus.subscribe(`crucible.runs.run_${tag}.>`, (m) =>
            seen[i]!.push(`${m.subject} ${JSON.stringify(m.data)}`),
          ),
        ),
      );
      await installations[0]!.bus.publish(subject, { from: 'a' });
      await installations[1]!.bus.publish(subject, { from: 'b' });
      await installations[0]!.bus.publish(subject, { from: 'a', n: 2 });
      const deadline = Date.now() + 10_000;
      while ((seen[0]!.length < 2 || seen[1]!.length < 1) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      // a little longer, for anything that crosses over late
      await new Promise((r) => setTimeout(r, 300));
      expect(seen[0]).to.deep.equal([`${subject} {"from":"a"}`, `${subject} {"from":"a","n":2}`]);
      expect(seen[1]).to.deep.equal([`${subject} {"from":"b"}`]);
    } finally {
      for (const inst of installations) {
        await inst.close();
      }
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  it('refuses a prefix that a subject or a stream name cannot carry', () => {
    for (const bad of ['a.b', 'a b', 'a*', 'a>', 'x'.repeat(65)])
      expect(() => loadConfig({ NATS_PREFIX: bad }), bad).to.throw(/NATS_PREFIX must be one token/);
    expect(loadConfig({ NATS_PREFIX: 'team-1_a' }).natsPrefix).to.equal('team-1_a');
    expect(loadConfig({}).natsPrefix).to.equal('');
  });
});
