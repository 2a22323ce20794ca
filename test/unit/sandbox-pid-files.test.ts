import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxPidFiles, processStart } from '../../world-worker/sandboxes/pid-files.js';

/** A process that records a detached `sleep` (a process group of its own, like a sandbox) and then waits to be killed. */
const OWNER = `
  const { spawn } = require('node:child_process');
  const { SandboxPidFiles } = require(process.env.PID_FILES_MODULE);
  const files = new SandboxPidFiles(process.env.PID_DIR);
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  files.record(child.pid, process.env.SANDBOX_DATA);
  console.log(child.pid);
  setInterval(() => undefined, 1000);
`;

describe('sandbox pid files (world-worker/sandboxes/pid-files.ts)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'crucible-pids-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reaps the process group of a sandbox whose worker was killed, and removes its data', async function () {
    this.timeout(60_000);
    const data = path.join(dir, 'sandboxes', 'ep_1');
    mkdirSync(data, { recursive: true });
    const owner = spawn(process.execPath, ['--import', 'tsx', '-e', OWNER], {
      env: {
        ...process.env,
        PID_FILES_MODULE: path.resolve('world-worker/sandboxes/pid-files.ts'),
        PID_DIR: path.join(dir, 'pids'),
        SANDBOX_DATA: data,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const sleeper = await new Promise<number>((resolve) =>
      owner.stdout!.once('data', (d) => resolve(Number(String(d)))),
    );
    const files = new SandboxPidFiles(path.join(dir, 'pids'));
    // its owner is alive: nothing is touched
    expect(files.reapOrphans()).to.equal(0);
    expect(processStart(sleeper)).to.not.equal(null);
    owner.kill('SIGKILL');
    await new Promise((r) => owner.once('exit', r));
    // the sleeper outlived its owner (its own process group), as a sandbox outlives a killed worker
    expect(processStart(sleeper)).to.not.equal(null);
    expect(files.reapOrphans()).to.equal(1);
    for (let i = 0; i < 50 && processStart(sleeper) !== null && !isZombie(sleeper); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(processStart(sleeper) === null || isZombie(sleeper)).to.equal(true);
    expect(existsSync(data)).to.equal(false);
    expect(readdirSync(path.join(dir, 'pids'))).to.deep.equal([]);
  });

  it('forgets a group that ended, and never signals a pid that now names another process', () => {
    const files = new SandboxPidFiles(path.join(dir, 'pids'));
    files.record(process.pid, path.join(dir, 'x'));
    files.forget(process.pid);
    expect(readdirSync(path.join(dir, 'pids'))).to.deep.equal([]);
  });
});

function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}
