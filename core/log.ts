import { pino, type Logger } from 'pino';

export type { Logger };

/** The root logger of a process; components take `logger.child({ component })`. */
export function createLogger(level: string, name = 'crucible'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
