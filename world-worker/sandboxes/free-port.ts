import { createServer } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago: listen on port 0, read the port the
 * kernel chose, close. Another process may take it before the caller binds, so callers
 * retry on EADDRINUSE.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
