import { open } from 'node:fs/promises';
import path from 'node:path';
import { listTree } from './tree.js';

/**
 * How many tokens of source a scenario proposal is shown beside the manifest and the tool
 * schemas (docs/worlds.md, Proposals). Estimated at CHARS_PER_TOKEN characters a token,
 * the usual rule of thumb for code and English with OpenAI-style tokenizers.
 */
export const SOURCE_TOKEN_BUDGET = 8_000;
export const CHARS_PER_TOKEN = 4;
/** A file larger than this is generated or data, never read for a proposal. */
export const MAX_SOURCE_FILE_BYTES = 64 * 1024;
/** No one file takes more than this share of the budget, so several relevant files fit. */
const MAX_FILE_SHARE = 0.5;
/** At most this many terms are matched (the manifest's services, tools and routes). */
const MAX_TERMS = 300;

/** One source file chosen for a proposal, cut to what the budget leaves. */
export interface RelevantFile {
  path: string;
  text: string;
  /** Characters of the file left out. */
  truncated_chars: number;
  /** Why it was chosen: the terms its path or text named (or `openapi`). */
  matched: string[];
}

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'poetry.lock',
  'pipfile.lock',
  'gemfile.lock',
  'cargo.lock',
  'composer.lock',
  'go.sum',
  'mix.lock',
]);
const BINARY_EXT =
  /\.(png|jpe?g|gif|webp|ico|bmp|tiff?|svgz|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|jar|war|class|so|dylib|dll|exe|bin|o|a|wasm|pyc|woff2?|ttf|otf|eot|mp[34]|mov|avi|webm|ogg|wav|flac|sqlite3?|db|lockb)$/i;
const MINIFIED = /\.min\.(js|css)$|\.map$/i;
const TEXT_EXT =
  /\.(m?[jt]sx?|cjs|cts|mts|py|rb|go|rs|java|kt|cs|php|ex|exs|scala|swift|c|h|cc|cpp|hpp|sql|ya?ml|json|toml|ini|md|txt|html?|graphql|gql|proto|sh)$/i;
const OPENAPI = /(^|\/)(openapi|swagger)[\w.-]*\.(ya?ml|json)$|\.openapi\.(ya?ml|json)$/i;
const HANDLER_DIR = /(^|\/)(routes?|handlers?|controllers?|api|endpoints?|views|services?)\//i;
const COMMON = new Set(
  'get set put post patch delete create update add find list new the and for with from api ids'.split(' '),
);

/** The words of a term: `listNotes`, `list_notes`, `/items/{id}/notes` -> list, notes, items. */
function wordsOf(term: string): string[] {
  return term
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !COMMON.has(w));
}

/** Whether a file is a world file the proposal is already shown (world.yaml, its scenarios, seed, policies). */
function isWorldFile(p: string): boolean {
  return p === 'world.yaml' || p.startsWith('world/');
}

async function readHead(abs: string, max: number): Promise<{ buf: Buffer; size: number } | null> {
  const fh = await open(abs, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(Math.min(size, max));
    await fh.read(buf, 0, buf.length, 0);
    return { buf, size };
  } finally {
    await fh.close();
  }
}

/**
 * Chooses the source files a scenario proposal is shown (docs/worlds.md, Proposals): the
 * OpenAPI documents, then the text files whose name or content names the most `terms`
 * (the manifest's services, tool names and route paths; a file under routes/, handlers/,
 * controllers/ and the like ranks higher). Skipped: world.yaml, world/ and the files in
 * `exclude` (the scenario templates: the proposal is shown the manifest and an example
 * already), lockfiles, minified files and source maps, binaries (by extension or a
 * NUL byte), files over MAX_SOURCE_FILE_BYTES, and files naming no term. The chosen files
 * are cut so all of them fit `budgetTokens` (CHARS_PER_TOKEN characters a token), no one
 * file taking more than half of it.
 */
export async function relevantSourceFiles(
  root: string,
  terms: string[],
  budgetTokens = SOURCE_TOKEN_BUDGET,
  exclude: ReadonlySet<string> = new Set(),
): Promise<RelevantFile[]> {
  const words = [...new Set(terms.slice(0, MAX_TERMS).flatMap(wordsOf))];
  const files = (await listTree(root)).filter((e) => e.type === 'file').map((e) => e.path);
  const scored: Array<{ path: string; text: string; score: number; matched: string[] }> = [];
  for (const f of files) {
    const base = path.posix.basename(f).toLowerCase();
    if (isWorldFile(f) || exclude.has(f) || LOCKFILES.has(base) || BINARY_EXT.test(f) || MINIFIED.test(f)) continue;
    const openapi = OPENAPI.test(f);
    if (!openapi && !TEXT_EXT.test(f) && !['dockerfile', 'procfile', 'makefile'].includes(base)) continue;
    const head = await readHead(path.join(root, f), MAX_SOURCE_FILE_BYTES + 1);
    if (!head || head.size > MAX_SOURCE_FILE_BYTES || head.buf.includes(0)) continue;
    const text = head.buf.toString('utf8');
    // the file's own name counts, not its folders': a folder named after a service holds unrelated files too
    const lowerPath = base;
    const lowerText = text.toLowerCase();
    const matched = words.filter((w) => lowerPath.includes(w) || lowerText.includes(w));
    const inPath = words.filter((w) => lowerPath.includes(w)).length;
    if (!openapi && matched.length === 0) continue;
    const score = (openapi ? 1000 : 0) + matched.length + 3 * inPath + (HANDLER_DIR.test(f) ? 5 : 0);
    scored.push({ path: f, text, score, matched: openapi ? ['openapi', ...matched] : matched });
  }
  scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const out: RelevantFile[] = [];
  let left = budgetTokens * CHARS_PER_TOKEN;
  const perFile = Math.floor(budgetTokens * CHARS_PER_TOKEN * MAX_FILE_SHARE);
  for (const s of scored) {
    if (left < 200) break;
    const text = s.text.slice(0, Math.min(left, perFile));
    out.push({ path: s.path, text, truncated_chars: s.text.length - text.length, matched: s.matched.slice(0, 20) });
    left -= text.length;
  }
  return out;
}
