import { Collections } from '../../core/collections.js';
import type { EventLog, ServiceEvent } from '../../core/event-log.js';
import { newId, nowIso } from '../../core/ids.js';
import type { DocumentStore } from '../../core/ports.js';

/**
 * Stand-ins for the job engine and the run coordinator in event tests: they write job and
 * run documents and append events exactly as producers do, through the real EventLog.
 */

/** Inserts a job (`kind` world_build) or a run document of `projectId`; returns its id. */
export async function insertStreamOwner(
  store: DocumentStore,
  kind: 'job' | 'run',
  projectId: string,
  status = 'running',
): Promise<string> {
  const id = newId(kind);
  const doc =
    kind === 'job'
      ? { _id: id, project_id: projectId, kind: 'world_build', status, created_at: nowIso() }
      : { _id: id, project_id: projectId, status, created_at: nowIso() };
  await store.insert(kind === 'job' ? Collections.jobs : Collections.runs, doc);
  return id;
}

/** Sets the status of a job or run document. */
export async function setStatus(store: DocumentStore, kind: 'job' | 'run', id: string, status: string): Promise<void> {
  await store.update(kind === 'job' ? Collections.jobs : Collections.runs, id, { status });
}

/** Appends one ordinary event (`agent.message` with text `message <n>`). */
export function appendMessage(log: EventLog, stream: string, projectId: string, n: number): Promise<ServiceEvent> {
  return log.append({
    stream,
    project_id: projectId,
    type: 'agent.message',
    summary: `message ${n}`,
    episode_id: 'ep_test',
    actor_id: 'support',
    data: { text: `message ${n}` },
  });
}

/** Appends `count` messages one after another, pausing `intervalMs` between them (0: none). */
export async function appendMessages(
  log: EventLog,
  stream: string,
  projectId: string,
  count: number,
  intervalMs = 0,
): Promise<ServiceEvent[]> {
  const out: ServiceEvent[] = [];
  for (let i = 1; i <= count; i++) {
    out.push(await appendMessage(log, stream, projectId, i));
    if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return out;
}

/**
 * Ends a job or run the way producers do: the document first, then its terminal event
 * (`job.status_changed` for a job, `run.finished` for a run).
 */
export async function finish(
  store: DocumentStore,
  log: EventLog,
  kind: 'job' | 'run',
  id: string,
  projectId: string,
  status: string,
): Promise<ServiceEvent> {
  await setStatus(store, kind, id, status);
  if (kind === 'job') {
    return log.append({
      stream: id,
      project_id: projectId,
      type: 'job.status_changed',
      summary: `job ${status}`,
      data: { status, previous: 'running' },
    });
  }
  return log.append({
    stream: id,
    project_id: projectId,
    type: 'run.finished',
    summary: `run ${status}`,
    data: { status },
  });
}
