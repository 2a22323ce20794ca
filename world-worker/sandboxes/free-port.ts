import { createServer } from 'node:net';

/** How long a port handed out stays ours: far longer than a service takes to bind it. */
const HOLD_MS = 60_000;
/** Ports handed out lately, with when. */
const handedOut = new Map<number, number>();

/**
 * A loopback TCP port that was free a moment ago: listen on port 0, read the port the
 * kernel chose, close. Another process may take it before the caller binds, so callers
 * retry on EADDRINUSE. Within this process a port is never handed out twice in a minute:
 * two sandboxes starting together could otherwise both be given a port the kernel freed
 * in between, and the second one's health check would be answered by the first one's
 * service.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at > HOLD_MS) handedOut.delete(port);
  for (let attempt = 0; ; attempt++) {
    const port = await kernelPort(host);
    if (!handedOut.has(port) || attempt >= 50) {
      handedOut.set(port, Date.now());
      return port;
    }
  }
}

function kernelPort(host: string): Promise<number> {
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
