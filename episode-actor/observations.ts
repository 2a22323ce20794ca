/**
 * What an external agent reads of its episode: the observation, built once per turn and shared
 * by every poll until it changes, and the long-polls (`Prefer: wait`) held until a turn is
 * offered or the episode ends.
 */
import type { EpisodeState, EpisodeWorld, Observation, TurnState } from './types.js';
import { observationView } from './views.js';

export class Observations {
  /** The last observation answered, and what it was built from. */
  #last: { turn: TurnState | null; actionKey: string | null; status: string; observation: Observation } | null = null;
  /** Held observations, woken when a turn is offered or the episode ends. */
  readonly #waiters = new Set<() => void>();

  /**
   * The observation of `st`: agents poll, so it is built once per turn (a new turn is a new
   * object; taking it sets action_key; ending changes the status) and shared until it changes.
   */
  of(st: EpisodeState, world: EpisodeWorld): Observation {
    const turn = st.turn;
    const c = this.#last;
    if (c && c.turn === turn && c.actionKey === (turn?.action_key ?? null) && c.status === st.status)
      return c.observation;
    const observation = observationView(st, world);
    this.#last = { turn, actionKey: turn?.action_key ?? null, status: st.status, observation };
    return observation;
  }

  /** Resolves when {@link wakeAll} is called, `ms` pass or `signal` aborts, whichever is first. */
  hold(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal?.addEventListener('abort', wake);
      this.#waiters.add(wake);
    });
  }

  /** Answers every held observation (a turn was offered, or the episode ended). */
  wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
