import type { EventLog } from '../core/event-log.js';
import type { EpisodeEvents } from './ports.js';

/**
 * The EpisodeEvents port over the durable event log: each episode event is appended to
 * the run's stream (store first, then the bus) with the episode id set.
 */
export function eventLogEmitter(log: EventLog, where: { stream: string; projectId: string; episodeId: string }): EpisodeEvents {
  return {
    async emit(e) {
      const ev = await log.append({
        stream: where.stream,
        project_id: where.projectId,
        episode_id: where.episodeId,
        type: e.type,
        summary: e.summary,
        actor_id: e.actor_id ?? null,
        goal_version: e.goal_version ?? null,
        data: e.data ?? {},
      });
      return { event_id: ev.event_id };
    },
  };
}
