import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Writes one bench's section into BENCHMARKS.md, replacing the text between its
 * `<!-- bench:<name> start -->` and `<!-- bench:<name> end -->` markers (or appending it),
 * so each bench keeps its own figures and leaves the others' alone.
 */
export function writeBenchSection(name: string, section: string): void {
  const file = new URL('../../BENCHMARKS.md', import.meta.url);
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const header = `# Benchmarks\n\nMeasured figures and the commands that produced them. Machine: ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, shared with other work while measuring.\n`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : header;
  const marked = new RegExp(`<!-- bench:${name} start -->[\\s\\S]*?<!-- bench:${name} end -->`);
  text = marked.test(text) ? text.replace(marked, () => section) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
}
