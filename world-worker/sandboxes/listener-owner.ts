import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * Whether the socket listening on TCP `port` belongs to a process of the process group `pgid`
 * (Linux: /proc/net/tcp{,6} name the listening sockets' inodes, /proc/<pid>/fd the sockets a
 * process holds). null when it cannot be told: no /proc, or no listener found.
 *
 * A child-process sandbox is given a port the kernel freed a moment before (free-port.ts). A
 * worker process on the same host (several world-workers, or parallel test jobs) can be given
 * the same port in that moment: its service binds first, ours fails with EADDRINUSE, and until
 * ours exits the health check is answered by the other one's service, which the episode would
 * then seed and act on as its own (CI saw "seed step 1 (create_user) answered 404: no route
 * /users": another world's service). The health check is only believed once the listener is
 * known to be ours.
 */
export function listensInGroup(port: number, pgid: number): boolean | null {
  const inodes = listeningInodes(port);
  if (inodes === null || inodes.size === 0) return null;
  // the service itself first (the usual case: `node server.mjs`), then the rest of its group
  if (holdsOne(pgid, inodes)) return true;
  return groupPids(pgid).some((pid) => pid !== pgid && holdsOne(pid, inodes));
}

/** The inodes of the sockets listening on `port` (any address, IPv4 and IPv6); null without /proc. */
function listeningInodes(port: number): Set<string> | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const out = new Set<string>();
  let read = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    read = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A: LISTEN
      if (f[1]!.slice(f[1]!.lastIndexOf(':') + 1) === hexPort) out.add(f[9]!);
    }
  }
  return read ? out : null;
}

/** Whether process `pid` holds one of the sockets `inodes`. */
function holdsOne(pid: number, inodes: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or not ours to read
  }
  for (const fd of fds) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m && inodes.has(m[1]!)) return true;
  }
  return false;
}

/** The live processes of process group `pgid`. */
function groupPids(pgid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) === pgid) out.push(Number(name));
    } catch {
      // ended since the listing
    }
  }
  return out;
}
