import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Options of {@link WalCheckpointer}. */
export interface WalCheckpointerOptions {
  /** How often the thread copies the log into the database file; default 250 ms. */
  intervalMs?: number;
  /** Log size (frames, one page each) past which the log is not being reset; default 8192 (32 MB of 4 KB pages). */
  maxFrames?: number;
  busyTimeoutMs: number;
  /** The log keeps growing (writes never leave a gap for a complete checkpoint): checkpoint and reset it in the store's own connection. */
  onLogTooLarge(frames: number): void;
  /** The thread failed or exited on its own: the store goes back to checkpointing itself. */
  onStopped(err: Error): void;
}

/**
 * The thread's code (CommonJS, evaluated: no TypeScript loader needed in the thread).
 * A PASSIVE checkpoint never waits for or blocks the store's writers; a failed one is
 * tried again at the next tick. After a complete checkpoint, the store's next write
 * starts the log over from its beginning, so the file stays small.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma('synchronous = NORMAL');
let reported = 0;
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
const timer = setInterval(() => {
  let r;
  try {
    r = checkpoint();
    // pages written during a checkpoint are left for the next one, and the log starts over
    // only after a complete one: while writes keep coming, copy what they added, a few times
    for (let i = 0; i < 8 && r.log > 0 && r.checkpointed < r.log; i++) r = checkpoint();
  } catch {
    return;
  }
  if (r.log > workerData.maxFrames && Date.now() - reported > 5000) {
    reported = Date.now();
    parentPort.postMessage({ tooLarge: r.log });
  }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a SQLite file's write-ahead log from a thread of its own. With SQLite's
 * automatic checkpoints, every 1000th page written makes one of the store's writes copy
 * the log into the database and wait for the disk (fsync): 10 ms on a quiet disk, far more
 * on a busy one, on the thread that serves every request and runs every episode. The store
 * turns those off (`wal_autocheckpoint = 0`) and this thread does the copying instead,
 * beside it (docs/architecture.md, "The embedded store").
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #closing = false;

  constructor(file: string, opts: WalCheckpointerOptions) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        driver,
        file,
        busyTimeoutMs: opts.busyTimeoutMs,
        intervalMs: opts.intervalMs ?? 250,
        maxFrames: opts.maxFrames ?? 8192,
      },
    });
    this.#worker.unref();
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.on('message', (m: { tooLarge?: number }) => {
      if (m.tooLarge !== undefined) opts.onLogTooLarge(m.tooLarge);
    });
    let stopped = false;
    const stop = (err: Error) => {
      if (this.#closing || stopped) return;
      stopped = true;
      opts.onStopped(err);
    };
    this.#worker.on('error', stop);
    this.#worker.on('exit', (code) => stop(new Error(`the checkpoint thread exited (code ${code})`)));
  }

  /** Stops the thread after its current checkpoint (its connection closed cleanly). */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#worker.postMessage('close');
    const timer = setTimeout(() => void this.#worker.terminate(), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }
}
