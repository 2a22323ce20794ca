import { expect } from 'chai';
import { queuedPerFreePlace } from '../../scheduler/metrics.js';

/** The worker HPA's signal, crucible_episodes_queued_per_free_place (docs/operations.md, "Scaling workers"). */
describe('queued episodes per free place', () => {
  const w = (capacity: number, active: number, draining = false) => ({ capacity, active, draining });

  it('divides the queue by the free places of the live workers', () => {
    expect(queuedPerFreePlace(6, [w(4, 1), w(4, 2)])).to.equal(6 / 5);
  });

  it('leaves draining workers out: their free places take no work', () => {
    expect(queuedPerFreePlace(6, [w(4, 1), w(4, 0, true)])).to.equal(2);
  });

  it('counts a full or empty fleet as one place, so the signal is the queue itself', () => {
    expect(queuedPerFreePlace(5, [w(2, 2)])).to.equal(5);
    expect(queuedPerFreePlace(5, [])).to.equal(5);
  });

  it('a worker hosting more than its capacity (lowered at a restart) gives no negative places', () => {
    expect(queuedPerFreePlace(3, [w(2, 4), w(4, 1)])).to.equal(1);
  });

  it('is 0 with nothing queued', () => {
    expect(queuedPerFreePlace(0, [w(4, 0)])).to.equal(0);
  });

  it('summed over schedulers, is the installation queue per free place', () => {
    const fleet = [w(4, 1), w(4, 1)];
    expect(queuedPerFreePlace(3, fleet) + queuedPerFreePlace(9, fleet)).to.equal(12 / 6);
  });
});
