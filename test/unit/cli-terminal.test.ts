import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { barLayout } from '../../cli/commands/follow.js';
import { runOnPty } from '../support/pty.js';
import { fakeId, openStream, StubApi } from '../support/stub-api.js';

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const WRAP_OFF = '\x1b[?7l';
const WRAP_ON = '\x1b[?7h';

/** What a terminal shows of `output`: escape sequences dropped, one entry per line or redraw (`\r`, back to column 1). */
const shownLines = (output: string): string[] =>
  output
    .replace(/\x1b\[\d*G/g, '\n')
    .replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '')
    .split(/\r\n|\r|\n/)
    .filter(Boolean);

/**
 * The progress bar on a real (pseudo-)terminal: it hides the cursor and turns line wrapping
 * off while it draws, and every way out gives both back; Ctrl-C says the work goes on on
 * the server and names the commands that follow it again or stop it. The API behind is a
 * stub whose event stream never ends, so only the signal ends the command.
 */
describe('cli: the progress bar on a terminal gives the cursor and wrapping back', function () {
  this.timeout(120_000);
  const api = new StubApi();
  const runId = fakeId('run');
  const jobId = fakeId('job');

  before(async () => {
    await api.start();
    api
      .on('POST', '/v1/evaluations', { status: 202, json: { run_id: runId, episodes: 4, shards: 1 } })
      .on(
        'GET',
        `/v1/runs/${runId}/events`,
        openStream([
          { event_id: 1, type: 'run.started', data: { episodes: 4 }, summary: 'run started', created_at: '' },
          {
            event_id: 2,
            type: 'episode.finished',
            episode_id: fakeId('ep'),
            data: { termination: 'completed', reward: 1 },
            summary: 'finished',
            created_at: '',
          },
        ]),
      )
      .on('POST', '/v1/world-builds', {
        status: 202,
        json: { job_id: jobId, world_id: fakeId('wld'), version: 1, world_version_id: fakeId('wv') },
      })
      .on(
        'GET',
        `/v1/jobs/${jobId}/events`,
        openStream([
          {
            event_id: 1,
            type: 'compiler.phase.started',
            data: { phase: `analyse ${'with a very long label that would not fit '.repeat(3)}` },
            summary: '',
            created_at: '',
          },
        ]),
      );
  });
  after(async () => api.close());

  const env = () => ({ SERVICE_URL: api.url, SERVICE_API_KEY: 'svc_test', HOME: '/nonexistent' });

  it('Ctrl-C during eval start: cursor and wrapping back, one line naming runs follow and runs stop, exit 130', async () => {
    // whole ids: a prefix (`wv_1`) would be looked up in lists this stub does not answer
    const pty = runOnPty(['eval', 'start', '--world-version', fakeId('wv'), '--profile', fakeId('prof')], env(), 100);
    await pty.waitFor('1/4 episodes');
    pty.type('\x03');
    const { code, output } = await pty.done;
    expect(code).to.equal(130);
    const drawn = output.indexOf(HIDE_CURSOR);
    expect(drawn, 'the bar hid the cursor').to.be.at.least(0);
    expect(output.indexOf(WRAP_OFF), 'the bar turned wrapping off').to.be.at.least(0);
    expect(output.lastIndexOf(SHOW_CURSOR), 'cursor shown again').to.be.greaterThan(drawn);
    expect(output.lastIndexOf(WRAP_ON), 'wrapping on again').to.be.greaterThan(output.lastIndexOf(WRAP_OFF));
    expect(output.replace(/\s+/g, ' ')).to.contain(
      `Stopped following. Run ${runId} goes on on the server: follow it again with ` +
        `\`crucible runs follow ${runId}\`, stop it with \`crucible runs stop ${runId}\`.`,
    );
    expect(output).to.contain(`Run ${runId}: 4 episodes in 1 shard.`);
  });

  it('SIGTERM during builds create on a 60-column terminal: the bar fits it, and the terminal is given back', async () => {
    const pty = runOnPty(['builds', 'create', fakeId('app')], env(), 60);
    await pty.waitFor('0/7 phases');
    const [cliPid] = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pty.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(cliPid, 'the crucible process under script').to.be.a('number');
    process.kill(cliPid!, 'SIGTERM');
    const { code, output } = await pty.done;
    expect(code).to.equal(143);
    expect(output.lastIndexOf(SHOW_CURSOR)).to.be.greaterThan(output.indexOf(HIDE_CURSOR));
    expect(output.lastIndexOf(WRAP_ON)).to.be.greaterThan(output.lastIndexOf(WRAP_OFF));
    expect(output.replace(/\s+/g, ' ')).to.contain(
      `Build ${jobId} goes on on the server: follow it again with \`crucible builds follow ${jobId}\``,
    );
    const bars = shownLines(output).filter((l) => l.includes('phases |'));
    expect(bars.length).to.be.greaterThan(0);
    for (const line of bars) expect(line.length, line).to.be.below(60);
  });

  it('the bar shrinks to leave the label room, from 40 cells down to 10', () => {
    expect(barLayout(200, 240, 'episodes').bar).to.equal(40);
    const narrow = barLayout(60, 240, 'episodes');
    expect(narrow.bar).to.be.below(40);
    expect(narrow.bar + ' 240/240 episodes | '.length + narrow.label).to.be.below(60);
    expect(barLayout(30, 240, 'episodes').bar).to.equal(10);
  });
});
