import { expect } from 'chai';
import { JobWake } from '../../scheduler/jobs/wakes.js';

const LONG = 3_600_000;

/** 'ended' when `p` has resolved by the next turn of the event loop, 'waiting' otherwise (no clock involved). */
async function state(p: Promise<void>): Promise<'ended' | 'waiting'> {
  let ended = false;
  void p.then(() => (ended = true));
  await new Promise((r) => setImmediate(r));
  return ended ? 'ended' : 'waiting';
}

/** The sleeps of a running job and the command notices that wake them (scheduler/jobs/wakes.ts). */
describe('job sleeps woken by commands (scheduler/jobs/wakes.ts)', () => {
  it('a nudge wakes the sleeps under way, once: the next sleep waits its time', async () => {
    const wake = new JobWake(new AbortController().signal);
    const a = wake.sleep(LONG);
    const b = wake.sleep(LONG);
    expect(await state(a)).to.equal('waiting');
    wake.nudge();
    expect(await state(a)).to.equal('ended');
    expect(await state(b)).to.equal('ended');
    // a phase sleeping in a loop without looking at its flags does not spin on one nudge
    expect(await state(wake.sleep(LONG))).to.equal('waiting');
  });

  it('a nudge while no sleep is under way is kept for the next sleep only; looking at the flags takes it back', async () => {
    const wake = new JobWake(new AbortController().signal);
    wake.nudge(); // the command landed between the look at the flags and the sleep
    expect(await state(wake.sleep(LONG))).to.equal('ended');
    expect(await state(wake.sleep(LONG))).to.equal('waiting');
    wake.nudge();
    wake.looked(); // shouldStop read the flags after the command was written: nothing left to wake for
    expect(await state(wake.sleep(LONG))).to.equal('waiting');
  });

  it('a sleep ended through `until` no longer takes a nudge: the sleep after it gets it', async () => {
    const wake = new JobWake(new AbortController().signal);
    const over = new AbortController();
    const lost = wake.sleep(LONG, over.signal); // e.g. it lost a race against a freed place
    over.abort();
    expect(await state(lost)).to.equal('ended');
    wake.nudge();
    expect(await state(wake.sleep(LONG))).to.equal('ended');
    expect(await state(wake.sleep(LONG, over.signal))).to.equal('ended'); // `until` already aborted
  });

  it('the engine closing ends every sleep, and later ones at once', async () => {
    const closing = new AbortController();
    const wake = new JobWake(closing.signal);
    const a = wake.sleep(LONG);
    closing.abort();
    expect(await state(a)).to.equal('ended');
    expect(await state(wake.sleep(LONG))).to.equal('ended');
    expect(await state(wake.sleep(LONG))).to.equal('ended');
  });
});
