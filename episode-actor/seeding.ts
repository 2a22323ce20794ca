import { runSeed, scenarioContext, takeSnapshots, unchangedChecks } from '../world/index.js';
import type { EpisodeCore } from './core.js';
import { scheduleFaults } from './interventions.js';

/**
 * Sets up a new episode's world in its state: seeds the application (the world's seed,
 * then the scenario's, which sees the world's bindings and the scenario's facts), snapshots
 * what the scenario's `unchanged` checks compare, schedules its faults, marks it started,
 * announces `episode.started` and delivers the customer's opening request. The caller
 * offers the first turn and commits; a throw means the world failed while starting.
 */
export async function seedEpisode(core: EpisodeCore): Promise<void> {
  const st = core.state;
  const world = core.world;
  const worldBindings = await runSeed(world.seed, core.app, st.scenario.vars);
  const facts = scenarioContext(st.scenario, worldBindings).facts;
  const scenarioBindings = await runSeed(st.scenario.seed, core.app, {
    ...st.scenario.vars,
    ...worldBindings,
    facts,
  });
  st.bindings = { ...worldBindings, ...scenarioBindings };
  core.resetVars();
  st.snapshots = await takeSnapshots(unchangedChecks(st.scenario), core.app, core.vars);
  scheduleFaults(core);
  st.started = true;
  core.emitLater({
    type: 'episode.started',
    summary: `episode of ${st.scenario.id} started (${st.profile.driver}${st.profile.model ? `, ${st.profile.model}` : ''})`,
    data: {
      scenario_id: st.scenario.id,
      profile: st.profile.label ?? st.profile.model ?? 'unnamed profile',
      split: st.scenario.split,
      driver: st.profile.driver,
    },
  });
  await core.deliverCustomer([core.customer.opening(st)]);
}
