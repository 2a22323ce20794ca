import { expect } from 'chai';
import { Command } from 'commander';
import os from 'node:os';
import path from 'node:path';
import { registerClientCommands } from '../../cli/commands/index.js';
import { TERMINAL_WIDTH, uniquePrefixes } from '../../cli/commands/output.js';
import { endedStream, fakeId, StubApi } from '../support/stub-api.js';

/** Runs one client command in this process, as `crucible <args>`, and answers what it wrote on standard output. */
async function crucible(args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command('crucible').exitOverride();
  registerClientCommands(program);
  let out = '';
  let err = '';
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((out += String(chunk)), true)) as typeof write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((err += String(chunk)), true)) as typeof writeErr;
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'crucible', ...args]);
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
    process.stdout.removeAllListeners('error');
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { out, err, code };
}

const long = (what: string) => `${what} ${'with a long descriptive name '.repeat(5)}`.trim();
const at = '2026-12-02T00:39:22.123Z';

/**
 * Every list command of the CLI against answers made long on purpose (ids of 36 characters,
 * names of 150, several rows): by default each line fits 100 columns (ids cut to unique
 * prefixes, times to the minute, long texts cut), and `--wide` prints them whole.
 */
describe('cli: every list command fits 100 columns; --wide prints everything', function () {
  this.timeout(60_000);
  const api = new StubApi();
  const saved = { ...process.env };
  const runId = fakeId('run');
  const wv = fakeId('wv');
  // two ids sharing their first 10 hex digits: their prefixes must go further to differ
  const twins = [`ep_0123456789${'a'.repeat(22)}`, `ep_0123456789${'b'.repeat(22)}`];
  const episodes = [...twins, fakeId('ep')];
  const bigState = { refunds: Array.from({ length: 40 }, (_, i) => ({ id: `rf_${i}`, amount: 30, order: 'o_1' })) };
  const episode = {
    id: episodes[0],
    run_id: runId,
    profile: 'reference@v1',
    status: 'finished',
    termination: 'completed',
    reward: 0.5,
    cost_usd: 0.0042,
    scenario: { id: 'refund-once', title: 'Refund a kettle once', split: 'dev', spec: { checks: bigState } },
    oracle: {
      checks_passed: 3,
      checks_total: 4,
      checks_goal_version: 2,
      false_completion: true,
      duplicate_effects: [],
      check_results: [
        {
          check: 'refunded once',
          kind: 'state',
          passed: false,
          observed: {
            matchers: [
              { path: 'refunds', expect: { count: 1 }, actual: bigState.refunds, passed: false },
              { path: 'refunds.0.amount', equals: 30, actual: 30, passed: true },
            ],
          },
        },
        { check: 'told the amount', kind: 'told', passed: true, observed: { texts: ['Refunded 30.00'] } },
        {
          check: 'world guard: list_orders holds the same records',
          kind: 'unchanged',
          passed: true,
          observed: { unchanged: true },
        },
        {
          check: 'world guard: mia as get_customer reads it is unchanged',
          kind: 'unchanged',
          passed: true,
          observed: { unchanged: true },
        },
      ],
      habits: {
        ids_from_reads: {
          passed: false,
          violations: [{ action_index: 1, actor: 'billing', tool: 'create_refund', reason: 'guessed id o_1' }],
        },
      },
    },
    actions: [
      {
        index: 0,
        actor: 'frontline',
        tool: 'find_customer',
        args: { email: 'dana@example.com' },
        result: { outcome: 'ok', content: bigState },
      },
      { index: 1, actor: 'billing', tool: 'create_refund', args: { order_id: 'o_1', amount: 30 }, status: 'succeeded' },
    ],
    messages: [
      {
        from: 'customer',
        text: `Hello, I want my money back for the kettle. ${'It broke on the first day. '.repeat(8)}`,
        after_action: 0,
      },
      { from: 'frontline', to: 'customer', text: 'Refunded 30.00', after_action: 2 },
    ],
  };
  const job = (i: number) => ({
    id: fakeId('job'),
    kind: 'world_build',
    status: 'succeeded',
    attempts: 1,
    completed_phases: ['fetch_source', 'analyse'],
    spent_usd: 0.1234 * i,
    created_at: at,
  });

  before(async () => {
    await api.start();
    process.env.SERVICE_URL = api.url;
    process.env.SERVICE_API_KEY = 'svc_test';
    process.env.SERVICE_CONFIG = path.join(os.tmpdir(), `no-sign-in-${process.pid}.json`);
    const app = () => ({
      id: fakeId('app'),
      name: long('application'),
      source: { kind: 'git', url: `https://git.example.com/${'deep/'.repeat(20)}repo.git` },
      created_at: at,
    });
    api
      .on('GET', '/v1/applications', { json: [app(), app(), app()] })
      .on('POST', '/v1/applications/import-catalog', {
        json: { plan: 'free', registered: [app(), app()], skipped: [{ name: long('app'), reason: long('plan') }] },
      })
      .on('GET', '/v1/jobs', { json: [job(1), job(2), job(3)] })
      .on('GET', '/v1/worlds', {
        json: [1, 2].map((n) => ({
          id: fakeId('wld'),
          name: long(`world ${n}`),
          versions: [1, 2].map((v) => ({
            id: fakeId('wv'),
            version: v,
            status: 'published',
            world_content_hash: `sha256:${'f'.repeat(64)}`,
          })),
        })),
      })
      .on('GET', `/v1/world-versions/${wv}/scenarios`, {
        json: [1, 2, 3].map((n) => ({
          id: fakeId('sc'),
          split: 'dev',
          status: 'approved',
          scenario_id: long(`s${n}`),
        })),
      })
      .on('GET', '/v1/agent-profiles', {
        json: [1, 2].map((n) => ({
          id: fakeId('prof'),
          label: `${long('profile')}@v${n}`,
          driver: 'llm',
          model: `openai:${'very-long-model-name-'.repeat(4)}`,
          temperature: 0.2,
          max_turns_per_actor: 25,
        })),
      })
      .on('GET', '/v1/runs', {
        json: [1, 2, 3].map((i) => ({
          run_id: i === 1 ? runId : fakeId('run'),
          status: 'finished',
          config: { world_version_id: fakeId('wv') },
          created_at: at,
        })),
      })
      .on('GET', `/v1/runs/${runId}/episodes`, {
        json: episodes.map((id) => ({
          id,
          profile: `${long('profile')}@v1`,
          scenario: long('scenario'),
          split: 'holdout',
          status: 'finished',
          termination: 'external_timeout',
          reward: 0.123456,
          cost_usd: 0.0123,
        })),
      })
      .on(
        'GET',
        `/v1/runs/${runId}/events`,
        endedStream(
          episodes.map((id, i) => ({
            event_id: 1000 + i,
            type: 'build.scenario.validated',
            created_at: at,
            episode_id: id,
            summary: long('an event summary'),
            data: {},
          })),
        ),
      )
      .on('POST', `/v1/runs/${runId}/commands`, {
        json: {
          status: 'cancelling',
          detail: long('the run stops'),
          shards: [1, 2, 3].map((n) => ({ shard_id: fakeId('shard'), job_id: fakeId('job'), status: `asked ${n}` })),
        },
      })
      .on('GET', '/v1/api-keys', {
        json: [1, 2].map(() => ({
          id: fakeId('key'),
          name: `${long('key')} \u001b]0;owned\u0007\u001b[2J`,
          prefix: 'svc_AbCdEf',
          scopes: ['admin', 'read', 'write', 'evaluator', 'agent'],
          last_used_at: at,
        })),
      })
      .on('GET', `/v1/episodes/${episodes[0]}`, { json: episode })
      .on('GET', '/v1/artifacts', {
        json: [1, 2].map(() => ({
          id: fakeId('art'),
          kind: 'dataset_export',
          status: 'ready',
          size_bytes: 123456789,
          created_at: at,
        })),
      })
      .on('GET', '/v1/members', {
        json: ['owner', 'admin', 'member'].map((role) => ({
          user_id: fakeId('usr'),
          email: `${'someone.with.a.long.address'.repeat(2)}-${role}@example.com`,
          name: long('person'),
          role,
          created_at: at,
        })),
      })
      .on('GET', '/v1/audit-events', {
        json: ['member.role_changed', 'member.removed'].map((action) => ({
          id: fakeId('aud'),
          action,
          actor_user_id: fakeId('usr'),
          actor_key_id: null,
          target_user_id: fakeId('usr'),
          target_email: `${'someone.with.a.long.address'.repeat(2)}@example.com`,
          role_before: 'member',
          role_after: action === 'member.removed' ? null : 'admin',
          created_at: at,
        })),
      });
  });
  after(async () => {
    process.env = saved;
    await api.close();
  });

  const commands: string[][] = [
    ['apps', 'list'],
    ['apps', 'import-catalog'],
    ['builds', 'list'],
    ['jobs', 'list'],
    ['worlds', 'list'],
    ['scenarios', 'list', wv],
    ['profiles', 'list'],
    ['runs', 'list'],
    ['runs', 'episodes', runId],
    ['runs', 'events', runId],
    ['runs', 'stop', runId],
    ['keys', 'list'],
    ['exports', 'list'],
    ['members', 'list'],
    ['members', 'audit'],
    ['episodes', 'get', episodes[0]!],
  ];

  for (const args of commands)
    it(`crucible ${args.join(' ')}`, async () => {
      const { out, err, code } = await crucible(args);
      if (process.env.SHOW_CLI_OUTPUT) console.log(out);
      expect(code, err).to.equal(0);
      const lines = out.split('\n').filter(Boolean);
      expect(lines.length, out).to.be.greaterThan(1);
      for (const line of lines) expect(line.length, line).to.be.at.most(TERMINAL_WIDTH);
      const wide = await crucible([...args, '--wide']);
      expect(wide.code, wide.err).to.equal(0);
      const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
      expect(widest(wide.out), wide.out).to.be.at.least(widest(out));
      expect(wide.out).to.match(/_[0-9a-f]{32}\b/); // ids whole
    });

  it('shortens ids to the shortest prefix that tells them apart, and prints them whole with --wide', async () => {
    const { out } = await crucible(['runs', 'episodes', runId]);
    const shown = out
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[0]);
    expect(shown).to.deep.equal(uniquePrefixes(episodes));
    expect(shown[0]).to.equal(twins[0]!.slice(0, 'ep_0123456789a'.length));
    expect(shown[2]).to.have.length('ep_'.length + 6);
    expect((await crucible(['runs', 'episodes', runId, '--wide'])).out).to.contain(twins[1]);
  });

  it('episodes get shows the oracle (check, expected, observed) and the transcript in order', async () => {
    const { out } = await crucible(['episodes', 'get', episodes[0]!]);
    expect(out).to.contain('Oracle: 3 of 4 checks passed (goal version 2); false completion yes');
    expect(out).to.match(
      /^ {2}FAIL {2}refunded once \(state\)\n {8}FAIL {2}refunds\n {10}expected +\{"count":1\}\n {10}observed +\[\{"id":"rf_0"/m,
    );
    expect(out).to.match(/^ {10}expected +30\n {10}observed +30$/m);
    expect(out).to.match(/^ {2}pass {2}told the amount \(told\)$/m);
    // passing guards fold into one line after the other checks; --wide lists each
    expect(out).to.match(/^ {2}pass {2}2 world guards held: nothing they watch changed \(--wide lists them\)$/m);
    expect(out).to.not.contain('world guard: list_orders');
    expect(out.indexOf('FAIL  refunded once')).to.be.below(out.indexOf('pass  told the amount'));
    const wide = (await crucible(['episodes', 'get', episodes[0]!, '--wide'])).out;
    expect(wide).to.match(/^ {2}pass {2}world guard: list_orders holds the same records \(unchanged\)$/m);
    expect(out).to.contain('habit ids from reads broken');
    const transcript = out.slice(out.indexOf('Transcript (2 actions, 2 messages):'));
    const order = ['customer', '#0 frontline', '#1 billing', 'frontline > customer'].map((w) =>
      transcript.indexOf(`  ${w}`),
    );
    expect(
      order.every((i) => i > 0),
      transcript,
    ).to.equal(true);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
    // a message is never cut: every word of it is there, wrapped
    expect(transcript.replace(/\s+/g, ' ')).to.contain(`${'It broke on the first day. '.repeat(8).trim()}`);
  });

  it('prints control characters from the server as text, so a name cannot drive the terminal', async () => {
    const { out } = await crucible(['keys', 'list', '--wide']);
    expect(out).to.not.match(/[\u001b\u0007]/);
    expect(out).to.contain('\\x1b]0;owned\\x07\\x1b[2J');
  });

  it('runs events has an episode column', async () => {
    const { out } = await crucible(['runs', 'events', runId]);
    expect(out.split('\n')[0]).to.match(/^\s*event\s+time\s+episode\s+type\s+summary$/);
    expect(out).to.match(/^\s*1000\s+00:39:22\s+ep_01234567\s+build\.scenario\.validated\s+an event summary/m);
  });

  it('runs stop prints its shards as a table, not one JSON line', async () => {
    const { out } = await crucible(['runs', 'stop', runId]);
    expect(out).to.contain(`Run ${runId}: stop sent.`);
    expect(out).to.match(/^shards:\n\s*shard_id\s+job_id\s+status$/m);
    expect(out).to.not.contain('[{');
  });

  it('takes an id by a unique prefix, as the tables print it, and names what it found when none matches', async () => {
    const listed = await crucible(['runs', 'list']);
    const shown = uniquePrefixes([runId])[0]!;
    expect(listed.out).to.contain(shown);
    const episodesOf = await crucible(['runs', 'episodes', shown, '--json']);
    expect(episodesOf.code, episodesOf.err).to.equal(0);
    expect(api.requests).to.include(`GET /v1/runs/${runId}/episodes`);
    const other = runId.startsWith('run_0') ? 'run_1' : 'run_0';
    const none = await crucible(['runs', 'status', `${other}${runId.slice(5, 12)}`]);
    expect(none.code).to.equal(1);
    expect(none.err).to.equal(`error: no run of this project has an id starting with ${other}${runId.slice(5, 12)}\n`);
  });
});
