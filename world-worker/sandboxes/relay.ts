import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * The program of a relay sidecar, run as `node -e RELAY_PROGRAM <socket> <port>` in a
 * container that shares the service container's network namespace (which has no
 * interface but loopback). It listens on a unix socket in a folder only the relay
 * container mounts and forwards each connection to 127.0.0.1:<port>, the service. The
 * service never sees the folder, so the relay is the only way in and there is no way out.
 */
export const RELAY_PROGRAM = `
const net = require('node:net'), fs = require('node:fs');
const [sock, port] = process.argv.slice(1);
try { fs.unlinkSync(sock); } catch {}
const server = net.createServer((c) => {
  const u = net.connect(Number(port), '127.0.0.1');
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
  c.pipe(u); u.pipe(c);
});
server.listen(sock, () => fs.chmodSync(sock, 0o666));
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * A loopback TCP listener on the worker's host that forwards each connection to a unix
 * socket (the relay sidecar's). This is the service's published address.
 */
export class LoopbackForwarder {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 (a free port) and forwards to `socketPath`. */
  static async open(socketPath: string): Promise<LoopbackForwarder> {
    const server = createServer();
    const fwd = new LoopbackForwarder(server);
    server.on('connection', (c) => {
      const u = connect(socketPath);
      fwd.#sockets.add(c).add(u);
      const end = () => {
        c.destroy();
        u.destroy();
        fwd.#sockets.delete(c);
        fwd.#sockets.delete(u);
      };
      for (const s of [c, u]) s.on('error', end).on('close', end);
      c.pipe(u);
      u.pipe(c);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return fwd;
  }

  get port(): number {
    const addr = this.#server.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  }

  /** Stops listening and cuts every open connection. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
