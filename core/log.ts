import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';

export type { Logger };

/** pino-pretty, loaded only by a process whose standard output is a terminal. */
const require = createRequire(import.meta.url);

/**
 * The root logger of a process; components take `logger.child({ component })`. On a
 * terminal (someone watching `npm start`) each line is readable: time, level, component and
 * message, then the other fields (pino-pretty, written synchronously so a line is never
 * lost at exit). Elsewhere (a pipe, a file, a container's log) one JSON object a line, as
 * log collectors read them.
 */
export function createLogger(level: string, name = 'crucible', tty = Boolean(process.stdout.isTTY)): Logger {
  const options = { name, level, base: { pid: process.pid } };
  if (!tty) return pino(options);
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pino(
    options,
    pretty({
      sync: true,
      colorize: pretty.isColorSupported,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,name,component',
      messageFormat: '{if component}[{component}] {end}{msg}',
      hideObject: false,
    }),
  );
}
