import type { client } from './service.js';

type Client = ReturnType<typeof client>;

const ENDED = ['succeeded', 'failed', 'cancelled'];

/**
 * Polls GET /v1/jobs/{id} until `until(job)` holds (default: the job ended); fails after
 * `timeoutMs`. A 503 (a restarting scheduler) is asked again, as a client would.
 */
export async function waitJob(
  c: Client,
  jobId: string,
  until: (job: any) => boolean = (j) => ENDED.includes(j.status),
  timeoutMs = 240_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.get(`/v1/jobs/${jobId}`);
    if (r.status === 503 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 250));
      continue;
    }
    if (r.status !== 200) throw new Error(`GET /v1/jobs/${jobId} answered ${r.status}: ${JSON.stringify(r.body)}`);
    if (until(r.body)) return r.body;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} did not get there in time; last seen ${JSON.stringify(r.body).slice(0, 600)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The events of a stream so far (GET /v1/streams/{stream}/events/page). */
export async function events(c: Client, stream: string): Promise<any[]> {
  const out: any[] = [];
  let cursor = 0;
  for (;;) {
    const r = await c.get(`/v1/streams/${stream}/events/page?cursor=${cursor}&limit=500`);
    if (r.status !== 200) throw new Error(`events page answered ${r.status}: ${JSON.stringify(r.body)}`);
    const page = Array.isArray(r.body) ? r.body : (r.body.events ?? []);
    out.push(...page);
    if (page.length < 500) return out;
    cursor = page[page.length - 1].event_id;
  }
}

/** Waits until the stream holds an event matching `pred`. */
export async function waitEvent(
  c: Client,
  stream: string,
  pred: (e: any) => boolean,
  timeoutMs = 120_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = (await events(c, stream)).find(pred);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no matching event on ${stream} in time`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Starts a build and waits for its job to end; returns the build answer and the ended job. */
export async function buildAndWait(c: Client, body: Record<string, unknown>): Promise<{ build: any; job: any }> {
  const r = await c.post('/v1/world-builds', body);
  if (r.status !== 202) throw new Error(`POST /v1/world-builds answered ${r.status}: ${JSON.stringify(r.body)}`);
  return { build: r.body, job: await waitJob(c, r.body.job_id) };
}
