import type { EventInput, EventLog } from '../core/index.js';
import type { EpisodeEvent, EpisodeEvents } from './ports.js';

/**
 * The EpisodeEvents port over the durable event log: each episode event is appended to
 * the run's stream (store first, then the bus) with the episode id set; a commit's events
 * go in one write (appendMany).
 */
export function eventLogEmitter(
  log: EventLog,
  where: { stream: string; projectId: string; episodeId: string },
): EpisodeEvents {
  const input = (e: EpisodeEvent): EventInput => ({
    stream: where.stream,
    project_id: where.projectId,
    episode_id: where.episodeId,
    type: e.type,
    summary: e.summary,
    actor_id: e.actor_id ?? null,
    goal_version: e.goal_version ?? null,
    data: e.data ?? {},
  });
  return {
    async emit(e) {
      const ev = await log.append(input(e));
      return { event_id: ev.event_id };
    },
    async emitMany(events) {
      const stored = await log.appendMany(events.map(input));
      return stored.map((ev) => ({ event_id: ev.event_id }));
    },
  };
}
