import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The files under `dir`: relative path -> sha256 of the bytes (`dir` for a folder). Written
 * so that the same walk runs inside a container (DATA_WALK_PROGRAM) and gives the same map.
 */
export async function dataFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[r] = 'dir';
        await walk(r);
      } else
        out[r] = createHash('sha256')
          .update(await readFile(path.join(dir, r)))
          .digest('hex');
    }
  };
  await walk('');
  return out;
}

/** The same walk as {@link dataFiles}, as a Node program printing the map as JSON (argv[1]: the folder). */
export const DATA_WALK_PROGRAM = `
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const root = process.argv[1];
const out = {};
const walk = (rel) => {
  let entries = [];
  try { entries = fs.readdirSync(root + '/' + rel, { withFileTypes: true }); } catch {}
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const r = rel ? rel + '/' + e.name : e.name;
    if (e.isDirectory()) { out[r] = 'dir'; walk(r); }
    else out[r] = createHash('sha256').update(fs.readFileSync(root + '/' + r)).digest('hex');
  }
};
walk('');
process.stdout.write(JSON.stringify(out));
`;

/**
 * How many processes of this machine belong to one of the process groups `groups`. The walk of
 * /proc reads each process's stat synchronously: a few microseconds each from the kernel, where
 * the same reads through the file system's thread pool queued behind each other and behind
 * every other file operation: with 20 warm sandboxes restoring at once, a probe took over a
 * second (bench/run --reuse), longer than the episode it followed.
 */
export function groupMembers(groups: readonly number[]): number {
  const wanted = new Set(groups);
  let n = 0;
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended since the listing
    }
    // fields after the command's closing parenthesis: state ppid pgrp ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state !== 'Z' && wanted.has(Number(pgrp))) n++;
  }
  return n;
}
