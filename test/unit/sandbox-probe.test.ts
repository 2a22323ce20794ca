import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { groupMembers } from '../../world-worker/sandboxes/probe.js';

/**
 * The restore probe counts the processes of a sandbox's process groups (world-worker/sandboxes/probe.ts):
 * a process a service left behind in its group makes the restored sandbox differ from its start.
 */
describe('the sandbox probe counts a process group’s members', () => {
  it('counts a leader and what it started, and nothing once the group is killed', async function () {
    this.timeout(10_000);
    // its own group (and session), as the child-process driver starts a service; one sleep left in the background
    const leader = spawn('sh', ['-c', 'sleep 30 & exec sleep 30'], { detached: true, stdio: 'ignore' });
    const pid = leader.pid!;
    try {
      let n = 0;
      for (let i = 0; i < 100 && n < 2; i++) {
        n = groupMembers([pid]);
        if (n < 2) await new Promise((r) => setTimeout(r, 20));
      }
      expect(n).to.equal(2);
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
    await new Promise((r) => leader.once('exit', r));
    let left = 1;
    for (let i = 0; i < 100 && left > 0; i++) {
      left = groupMembers([pid]);
      if (left > 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(left).to.equal(0);
  });
});
