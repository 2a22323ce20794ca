import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { Answer, Application } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, collect, common, record, run, show, table, type Column, type CommonOptions } from './output.js';

interface CreateOptions extends CommonOptions {
  name: string;
  git?: string;
  commit?: string;
  ref?: string;
  localPath?: string;
  upload?: string;
  image?: string[];
  policies?: string;
  notes?: string;
}

const appColumns: readonly Column<Application>[] = [
  // shortened like every id column: every command takes an id by its unique prefix (id-prefix.ts)
  ['id', (a) => a.id, 'id'],
  ['name', (a) => a.name, 'text'],
  ['source', (a) => a.source?.kind],
  ['where', (a) => a.source?.url ?? a.source?.path ?? '-', 'text'],
  ['created', (a) => a.created_at, 'time'],
];

/** `POST /v1/applications/import-catalog`: the plan, what was registered and what was skipped, and why. */
interface CatalogImport {
  plan?: string;
  registered?: Application[];
  skipped?: Array<{ name: string; reason: string }>;
}

/** The `source` object of spec section 2 from the command's options. */
function sourceOf(opts: CreateOptions): Record<string, string> {
  const given = [opts.git, opts.localPath, opts.upload].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new Error(
      'give exactly one source: --git <url> --commit <sha>, --local-path <folder>, or --upload <archive.tar.gz>',
    );
  if (opts.git !== undefined) {
    if (!opts.commit) throw new Error('--git needs --commit <full commit id>');
    return { kind: 'git', url: opts.git, commit: opts.commit, ...(opts.ref ? { ref: opts.ref } : {}) };
  }
  if (opts.localPath !== undefined) return { kind: 'local_path', path: opts.localPath };
  return { kind: 'upload' };
}

/** `service=image:tag@sha256:<digest>` pairs as the `images` object. */
function imagesOf(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  return Object.fromEntries(
    pairs.map((p) => {
      const at = p.indexOf('=');
      if (at < 1) throw new Error(`--image wants service=image:tag@sha256:<digest>, not ${p}`);
      return [p.slice(0, at), p.slice(at + 1)];
    }),
  );
}

/** Sends a .tar.gz archive as the one multipart part `file`. */
async function uploadArchive(opts: CommonOptions, appId: string, archive: string): Promise<unknown> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(archive)], { type: 'application/gzip' }), path.basename(archive));
  return api(opts).request('POST', `/v1/applications/${seg(appId)}/source`, { form });
}

/** Fills `crucible applications` (alias `apps`): list, get, create, upload, import-catalog, delete. */
export function registerApplicationCommands(apps: Command): void {
  common(apps.command('list'))
    .description('list the applications of the project')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<Application>('/v1/applications');
        show(opts, list, () => table(list, appColumns));
      }),
    );

  common(apps.command('get <app_id>'))
    .description('show one application')
    .action(
      run(async (appId: string, opts: CommonOptions) => {
        const app = await api(opts).get<Application>(`/v1/applications/${seg(appId)}`);
        show(opts, app, () => record(app));
      }),
    );

  common(apps.command('create'))
    .description('register an application (starts nothing); with --upload the archive is sent right after')
    .requiredOption('--name <name>', 'unique in the project, 1 to 200 characters')
    .option('--git <url>', 'git repository: https://... or git@host:path')
    .option('--commit <sha>', 'full commit id (40 or 64 lowercase hex characters), with --git')
    .option('--ref <ref>', 'branch or tag the commit came from, a note (with --git)')
    .option('--local-path <folder>', "a folder inside the server's SERVICE_SOURCE_ROOTS")
    .option('--upload <archive>', 'a .tar.gz archive of the source, uploaded after creation')
    .option('--image <service=image>', 'pinned image of a service, image:tag@sha256:<digest> (repeatable)', collect)
    .option('--policies <text>', 'rules the agent must follow, plain words')
    .option('--notes <text>', 'free text')
    .action(
      run(async (opts: CreateOptions) => {
        const client = api(opts);
        const body = {
          name: opts.name,
          source: sourceOf(opts),
          images: imagesOf(opts.image),
          policies: opts.policies,
          notes: opts.notes,
        };
        const app = await client.post<Application>('/v1/applications', body);
        const uploaded = opts.upload ? await uploadArchive(opts, app.id, opts.upload) : undefined;
        show(
          opts,
          uploaded === undefined ? app : { ...app, upload: uploaded },
          () => `Application ${app.id} (${app.name}) registered${opts.upload ? ' and its source uploaded' : ''}.\n`,
        );
      }),
    );

  common(apps.command('upload <app_id> <archive>'))
    .description('upload the .tar.gz source archive of an application with source kind upload')
    .action(
      run(async (appId: string, archive: string, opts: CommonOptions) => {
        const answer = await uploadArchive(opts, appId, archive);
        show(opts, answer, () => `Source of ${appId} uploaded.\n`);
      }),
    );

  common(apps.command('import-catalog'))
    .description("register the packaged sample applications, as many as the plan's application limit allows")
    .action(
      run(async (opts: CommonOptions) => {
        const answer = await api(opts).post<CatalogImport>('/v1/applications/import-catalog');
        const registered = answer.registered ?? [];
        const skipped = answer.skipped ?? [];
        show(
          opts,
          answer,
          () =>
            `Plan ${answer.plan}: ${registered.length} registered, ${skipped.length} skipped.\n` +
            (registered.length ? table(registered, appColumns) : '') +
            (skipped.length
              ? table(skipped, [
                  ['skipped', (s) => s.name, 'text'],
                  ['why', (s) => s.reason, 'text'],
                ])
              : ''),
        );
      }),
    );

  common(apps.command('delete <app_id>'))
    .description('delete an application (admin); its builds stop, finished runs stay in history')
    .action(
      run(async (appId: string, opts: CommonOptions) => {
        const answer = await api(opts).del<Answer>(`/v1/applications/${seg(appId)}`);
        show(opts, answer, () => `Application ${appId} deleted.\n`);
      }),
    );
}
