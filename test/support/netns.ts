/**
 * Test hosts on one machine: each a Linux network namespace with an address of its own on a
 * private /24, joined to the root namespace by a veth pair on a bridge. The bridge carries the
 * first address of the /24 and nothing routes the /24 anywhere else, so traffic stays between
 * the namespaces of this machine. Needs root and `ip netns` ({@link netnsUnavailable} says why
 * not). A host's link can be cut (its veth taken down) and a port on another host refused to
 * it (a DROP rule in its own namespace's OUTPUT chain), which is how the scale-out tests take
 * a worker off the network or a scheduler off Redis.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from './job.js';

const run = (cmd: string, args: string[]): string =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Why this machine cannot make test hosts (not root, no `ip netns`), or null when it can. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'making network namespaces needs root (run the suite as root)';
  const probe = `crucible-probe-${randomBytes(3).toString('hex')}`;
  try {
    run('ip', ['netns', 'add', probe]);
    run('ip', ['netns', 'del', probe]);
    const bridge = `cbp${randomBytes(3).toString('hex')}`;
    run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    run('ip', ['link', 'del', bridge]);
    run('sh', ['-c', 'command -v iptables']);
  } catch (err) {
    return `\`ip netns\`, bridges or iptables are not available here: ${String((err as Error).message).split('\n')[0]}`;
  }
  return null;
}

/** A free TCP port on `address` (an address of the root namespace, such as the bridge's), from the test job's block. */
export const freePortOn = (address: string): Promise<number> => freePort(address);

/** One test host: a namespace, its address, and what can be done to its network. */
export interface NetHost {
  readonly name: string;
  /** The namespace's name (`ip netns exec <ns> …`). */
  readonly ns: string;
  /** The host's address on the lab's /24. */
  readonly ip: string;
  /** Starts `command args` inside the namespace (`ip netns exec` replaces itself with it: same pid). */
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Takes the host off the network: its veth goes down on the bridge's side. */
  cut(): void;
  /** Puts it back. */
  restore(): void;
  /** Drops every packet this host sends to `address:port` (established connections too). */
  refuse(address: string, port: number): void;
  /** Takes that rule away again. */
  allow(address: string, port: number): void;
  /** Pids of the processes that live in this namespace. */
  pids(): number[];
}

/** A bridge and the hosts on it. */
export interface NetLab {
  /** The bridge's address (the root namespace on the /24): engines listen here. */
  readonly bridgeIp: string;
  /** The /24 as `a.b.c.0/24`. */
  readonly subnet: string;
  readonly hosts: Map<string, NetHost>;
  /** Makes a host (namespace, veth pair on the bridge, the next free address). */
  host(name: string): NetHost;
  /** Kills whatever is still running in the namespaces, deletes them and the bridge. */
  close(): void;
}

/** A /24 under 10.0.0.0/8 that no address or route of this machine mentions yet. */
function privateSubnet(): string {
  const taken = run('ip', ['-o', 'addr']) + run('ip', ['route']);
  for (let i = 0; i < 200; i++) {
    const prefix = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]! % 250}`;
    if (!taken.includes(`${prefix}.`)) return prefix;
  }
  throw new Error('no free private /24 under 10.200.0.0/13');
}

/**
 * Makes a lab: a bridge `cb<tag>` with the /24's first address, up, in the root namespace.
 * Every name carries a random tag, so parallel suites never meet.
 */
export function createNetLab(): NetLab {
  const tag = randomBytes(3).toString('hex');
  const prefix = privateSubnet();
  const bridge = `cb${tag}`;
  const bridgeIp = `${prefix}.1`;
  run('ip', ['link', 'add', bridge, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${bridgeIp}/24`, 'dev', bridge]);
  run('ip', ['link', 'set', bridge, 'up']);
  const hosts = new Map<string, NetHost>();
  let next = 10;
  const lab: NetLab = {
    bridgeIp,
    subnet: `${prefix}.0/24`,
    hosts,
    host(name) {
      if (hosts.has(name)) throw new Error(`host ${name} exists`);
      const index = next++;
      const ns = `crucible-${tag}-${name}`;
      const outside = `cv${tag}${index}`;
      const inside = `ci${tag}${index}`;
      const ip = `${prefix}.${index}`;
      run('ip', ['netns', 'add', ns]);
      run('ip', ['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside]);
      run('ip', ['link', 'set', inside, 'netns', ns]);
      run('ip', ['link', 'set', outside, 'master', bridge]);
      run('ip', ['link', 'set', outside, 'up']);
      const inNs = (args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);
      inNs(['ip', 'link', 'set', inside, 'name', 'eth0']);
      inNs(['ip', 'addr', 'add', `${ip}/24`, 'dev', 'eth0']);
      inNs(['ip', 'link', 'set', 'eth0', 'up']);
      inNs(['ip', 'link', 'set', 'lo', 'up']);
      const rule = (op: '-A' | '-D', address: string, port: number) =>
        inNs(['iptables', op, 'OUTPUT', '-p', 'tcp', '-d', address, '--dport', String(port), '-j', 'DROP']);
      const host: NetHost = {
        name,
        ns,
        ip,
        spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', ns, command, ...args], options),
        cut: () => void run('ip', ['link', 'set', outside, 'down']),
        restore: () => void run('ip', ['link', 'set', outside, 'up']),
        refuse: (address, port) => void rule('-A', address, port),
        allow: (address, port) => void rule('-D', address, port),
        pids: () => run('ip', ['netns', 'pids', ns]).split('\n').filter(Boolean).map(Number),
      };
      hosts.set(name, host);
      return host;
    },
    close() {
      for (const host of hosts.values()) {
        try {
          for (const pid of host.pids()) process.kill(pid, 'SIGKILL');
        } catch {
          // the namespace is gone already
        }
        try {
          run('ip', ['netns', 'del', host.ns]); // its veth pair goes with it
        } catch {
          // already deleted
        }
      }
      hosts.clear();
      try {
        run('ip', ['link', 'del', bridge]);
      } catch {
        // already deleted
      }
    },
  };
  return lab;
}
