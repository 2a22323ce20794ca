import { expect } from 'chai';
import { cli } from '../support/cli-process.js';
import { catalogWorkspace, runEpisodes, waitRun, type CatalogWorkspace } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A mean reward's interval as the summary prints it: `-` where the server gives none, else
 * `[low, high]`, with `*` when it is the conservative one given below 30 scenarios.
 */
const INTERVAL = '(-|\\[\\d\\.\\d{3}, \\d\\.\\d{3}\\]\\*?)';

describe('cli: evaluations, runs, episodes and compare against a running server', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let env: Record<string, string>;
  let wv: string;
  let runId: string;

  const json = async (args: string[]) => {
    const r = await cli([...args, '--json'], env);
    expect(r.code, `crucible ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return JSON.parse(r.stdout);
  };

  before(async () => {
    t = await startTestService();
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    env = {
      SERVICE_URL: t.url,
      SERVICE_API_KEY: await t.key(cw.ws.projectId, ['write', 'evaluator']),
      HOME: t.dataDir,
    };
  });
  after(async () => t?.close());

  it('eval start follows the run with progress on standard error and ends with the summary table', async () => {
    const profile = await json(['profiles', 'create', '--name', 'reference', '--model', 'builtin:reference']);
    const r = await cli(
      [
        'eval',
        'start',
        '--world-version',
        wv,
        '--profile',
        profile.id,
        '--split',
        'dev',
        '--repeats',
        '1',
        '--no-stress',
      ],
      env,
    );
    expect(r.code, r.stderr).to.equal(0);
    runId = /^Run (run_\w+): (\d+) episodes? in (\d+) shards?\.$/m.exec(r.stdout)![1]!;
    const episodes = await runEpisodes(cw.admin, runId);
    expect(r.stdout).to.contain(`Run ${runId}: finished`);
    // the summary fits 100 columns: profile, scored, mean reward with its interval (- where the
    // server gives none), success, pass^k, false completion, cost
    expect(r.stdout).to.match(/^profile\s+scored\s+mean reward\s+success\s+pass\^k\s+false completion\s+cost$/m);
    expect(r.stdout).to.match(
      new RegExp(
        `^reference@v1\\s+${episodes.length}\\s+1\\.000 ${INTERVAL}\\s+100\\.0%\\s+100\\.0%\\s+0\\.0%\\s+\\$`,
        'm',
      ),
    );
    expect(r.stdout.replace(/\s+/g, ' ')).to.contain('95% interval');
    expect(r.stdout).to.not.contain('pass_at_k');
    for (const line of r.stdout.split('\n')) expect(line.length, line).to.be.at.most(100);
    // --wide: every field, past 100 columns; --json: the whole run
    const wide = await cli(['runs', 'status', runId, '--wide'], env);
    expect(wide.stdout).to.match(/^profile\s+episodes\s+.*mean_reward.*pass\^k/m);
    expect(wide.stdout).to.contain('95% intervals (Wilson clustered by scenario: repeats are not independent)');
    expect(Math.max(...wide.stdout.split('\n').map((l) => l.length))).to.be.greaterThan(100);
    const all = await json(['runs', 'status', runId]);
    expect(all.summary.profiles['reference@v1']).to.include.keys('pass_at_k', 'tokens', 'failures', 'by_split');
    expect(r.stderr).to.contain(`[${episodes.length}/${episodes.length} episodes] run finished`);
    for (const e of episodes) expect(r.stderr).to.contain(`episode ${e.id} ${e.termination}`);
  });

  it('runs list, status, episodes, events; episodes get; compare', async () => {
    expect((await json(['runs', 'list'])).map((x: any) => x.run_id)).to.include(runId);
    const status = await json(['runs', 'status', runId]);
    expect(status.status).to.equal('finished');
    expect(status.summary.profiles).to.have.key('reference@v1');

    const table = await cli(['runs', 'episodes', runId, '--wide'], env); // ids whole
    const episodes = await runEpisodes(cw.admin, runId);
    for (const e of episodes)
      expect(table.stdout).to.match(new RegExp(`${e.id}\\s+reference@v1\\s+\\S+\\s+dev\\s+finished`));
    const record = await json(['episodes', 'get', episodes[0].id]);
    expect(record).to.include.keys('status', 'termination', 'reward', 'oracle', 'actions', 'messages');

    const events = (await cli(['runs', 'events', runId, '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.at(-1).type).to.equal('stream.end');
    expect(events.filter((e) => e.type === 'episode.finished')).to.have.length(episodes.length);

    const compared = await cli(['compare', runId], env);
    expect(compared.code, compared.stderr).to.equal(0);
    expect(compared.stdout).to.contain(`World version ${wv}`);
    // the mean reward's interval and the pinned scenario set (docs/scoring.md); one profile, so no paired comparison
    // every reward 1, and no interval: the run has fewer scenarios than one needs (docs/scoring.md, Statistics)
    expect(compared.stdout).to.match(new RegExp(`^reference@v1\\s+\\d+\\s+1\\.000 ${INTERVAL}\\s`, 'm'));
    expect(compared.stdout).to.match(/Scenario set sha256:[0-9a-f]{16} \(\d+ scenarios\)/);
    for (const line of compared.stdout.split('\n')) expect(line.length, line).to.be.at.most(100);
    const comparedWide = await cli(['compare', runId, '--wide'], env);
    expect(comparedWide.stdout).to.match(new RegExp(`^reference@v1 \\(all\\)\\s+\\d+\\s+1\\.000 ${INTERVAL}\\s`, 'm'));
    const shown = await cli(['runs', 'status', runId], env);
    expect(shown.stdout).to.contain('Per scenario (successes of scored repeats):');
  });

  it('exports: a dataset of the run and a bundle of the world version, listed, read and downloaded', async () => {
    const ready = async (id: string) => {
      for (let i = 0; i < 120; i++) {
        const a = await json(['exports', 'get', id]);
        if (a.status !== 'pending') return a;
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(`artifact ${id} stayed pending`);
    };
    const dataset = await json(['exports', 'dataset', '--run', runId, '--split', 'dev', '--all']);
    const bundle = await json(['exports', 'bundle', wv]);
    expect(await ready(dataset.artifact_id)).to.include({ status: 'ready', kind: 'dataset' });
    expect(await ready(bundle.artifact_id)).to.include({ status: 'ready', kind: 'bundle' });
    const listed = await json(['exports', 'list', '--kind', 'dataset']);
    expect(listed.map((a: any) => a.id))
      .to.include(dataset.artifact_id)
      .and.not.include(bundle.artifact_id);
    const file = `${t.dataDir}/dataset.jsonl.gz`;
    const dl = await cli(['exports', 'download', dataset.artifact_id, '-o', file], env);
    expect(dl.code, dl.stderr).to.equal(0);
    const { gunzipSync } = await import('node:zlib');
    const { readFileSync } = await import('node:fs');
    const lines = gunzipSync(readFileSync(file))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).to.have.length((await runEpisodes(cw.admin, runId)).length);
    expect(lines.every((l: any) => l.split === 'dev')).to.equal(true);
    const refused = await cli(['exports', 'dataset', '--run', runId, '--split', 'holdout'], env);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('HTTP 422');
  });

  it('an external turn is read and acted on from the terminal; runs stop cancels the run', async () => {
    const profile = await json(['profiles', 'create', '--name', 'by-hand', '--driver', 'external']);
    const started = await json([
      'eval',
      'start',
      '--world-version',
      wv,
      '--profile',
      profile.id,
      '--split',
      'dev',
      '--repeats',
      '1',
      '--no-follow',
    ]);
    expect(started).to.include.keys('run_id', 'job_id', 'episodes', 'shards');
    const ep = (await runEpisodes(cw.admin, started.run_id))[0].id;
    // one command, no polling loop: the read waits (Prefer: wait) until the turn is offered
    const turn = await cli(['episodes', 'observation', ep, '--wait', '120'], env);
    expect(turn.stdout).to.match(/^Turn of frontline \(request version 1\):/);
    expect(turn.stdout).to.match(/Tools: .*reply_to_customer/);
    const acted = await json([
      'episodes',
      'act',
      ep,
      '--actor',
      'frontline',
      '--tool',
      'reply_to_customer',
      '--args',
      '{"text":"Which e-mail address is on your account?"}',
      '--key',
      'cli-act-key-1',
    ]);
    expect(acted).to.include({ status: 'done', idempotency_key: 'cli-act-key-1', duplicate: false });
    expect(acted.result.content).to.equal('delivered to the customer');
    const refused = await cli(
      ['episodes', 'act', ep, '--actor', 'frontline', '--tool', 'wait', '--key', 'cli-act-key-1'],
      env,
    );
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal('error: idempotency key already used for a different action (HTTP 409)\n');

    const stop = await cli(['runs', 'stop', started.run_id], env);
    expect(stop.code, stop.stderr).to.equal(0);
    expect((await waitRun(cw.admin, started.run_id)).status).to.equal('cancelled');
  });
});
