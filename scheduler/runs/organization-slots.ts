import { Collections } from '../../core/index.js';
import { stateKey, type SchedulerDeps } from '../context.js';
import type { ProjectDoc } from '../../accounts/index.js';
import { limitsOf, loadProject } from '../../accounts/index.js';

/** The places episodes may take under their organization's `concurrent_episodes`, held until `leave()`. */
export interface OrganizationGate {
  /** Episodes the organization may still start now; null when its plan sets no limit. */
  room: number | null;
  /** Lets the next placement of the organization in this scheduler go ahead. */
  leave(): void;
}

interface GateState {
  /** The last placement of each organization in this scheduler (placements of one organization go one at a time). */
  turns: Map<string, Promise<void>>;
}

const GATES = stateKey('organization-gates', (): GateState => ({ turns: new Map() }));

/**
 * The plan's `concurrent_episodes`: episodes running at once in one organization, across
 * its projects and runs. A shard asks before it places episodes: `enter()` counts the
 * organization's running episodes in the store (after any placement of the same
 * organization by this scheduler, so none is counted twice or missed) and answers the room
 * left; the shard places at most that many and leaves. A full organization's episodes
 * stay queued until one of its episodes ends. Several schedulers count the same store: two
 * of them placing for one organization at the same moment can each take the last place.
 */
export class OrganizationSlots {
  readonly #deps: SchedulerDeps;
  readonly #state: GateState;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#state = deps.state.get(GATES);
  }

  async enter(projectId: string): Promise<OrganizationGate> {
    const store = this.#deps.adapters.store;
    const { organization } = await loadProject(store, projectId);
    const limit = limitsOf(organization).concurrent_episodes;
    if (limit === null) return { room: null, leave: () => undefined };
    const turns = this.#state.turns;
    const before = turns.get(organization._id) ?? Promise.resolve();
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const chained = before.then(() => mine);
    turns.set(organization._id, chained);
    void chained.then(() => {
      if (turns.get(organization._id) === chained) turns.delete(organization._id);
    });
    await before;
    try {
      const projects = (await store.find<ProjectDoc>(Collections.projects, { organization_id: organization._id })).map(
        (p) => p._id,
      );
      const running = await store.count(Collections.runEpisodes, { project_id: { $in: projects }, status: 'running' });
      return { room: Math.max(0, limit - running), leave };
    } catch (err) {
      leave();
      throw err;
    }
  }
}
