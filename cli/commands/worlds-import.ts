import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import type { Application } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, common, run, show, type CommonOptions } from './output.js';

interface ImportOptions extends CommonOptions {
  domain: string;
  out?: string;
  upload?: boolean;
  name?: string;
}

/**
 * Fills `crucible worlds import tau2 <dir> --domain retail`: the importer of a benchmark
 * whose tasks are data (docs/worlds.md, Importing a benchmark). It writes the application
 * source (one scenario per task) to `--out`; with `--upload` it also registers it as an
 * application with an uploaded source, ready for `crucible builds create`.
 */
export function registerWorldImportCommand(worlds: Command): void {
  const imports = worlds.command('import').description('turn a public benchmark into an application source');
  common(imports.command('tau2 <dir>'))
    .description(
      "import a tau2-bench domain folder (db.json, tasks.json, split_tasks.json, policy.md): one scenario per task, tau2's test split as holdout",
    )
    .requiredOption('--domain <domain>', 'the tau2 domain: retail')
    .option('--out <folder>', 'where to write the application source (default ./tau2-<domain>)')
    .option('--upload', 'also register it as an application and upload the source (needs a key with write)')
    .option('--name <name>', 'the application name with --upload (default tau2-<domain>)')
    .action(
      run(async (dir: string, opts: ImportOptions) => {
        const { importTau2 } = await import('../../world/index.js');
        const { CATALOG_DIR } = await import('../../catalog/index.js');
        const out = path.resolve(opts.out ?? `tau2-${opts.domain}`);
        const report = await importTau2({
          domain: opts.domain,
          dataDir: path.resolve(dir),
          serviceDir: path.join(CATALOG_DIR, 'apps', `tau2-${opts.domain}`),
          outDir: out,
        });
        let application: Application | undefined;
        if (opts.upload) application = await uploadSource(opts, out, opts.name ?? report.world);
        show(opts, { ...report, ...(application ? { application } : {}) }, () =>
          [
            `Imported ${report.tasks} tau2 ${opts.domain} tasks into ${out}`,
            `  splits: train ${report.splits.train}, dev ${report.splits.dev}, holdout ${report.splits.holdout} (tau2's test)`,
            `  gold actions tau2's tools refuse (left out of the reference plans): ${report.gold_failures.length}`,
            `  tasks whose gold actions change nothing in the database: ${report.unchanged_database.join(', ') || 'none'}`,
            application
              ? `Application ${application.id} (${application.name}) registered with the source uploaded.\nNext: crucible builds create ${application.id}`
              : `Next: crucible apps create --name ${report.world} --upload <archive of ${out}>, or run this again with --upload`,
            '',
          ].join('\n'),
        );
      }),
    );
}

/** Packs `dir` as .tar.gz, registers an application with an uploaded source and sends it. */
async function uploadSource(opts: CommonOptions, dir: string, name: string): Promise<Application> {
  const tar = await import('tar');
  const tmp = await mkdtemp(path.join(tmpdir(), 'crucible-import-'));
  try {
    const archive = path.join(tmp, 'source.tar.gz');
    await tar.c({ gzip: true, file: archive, cwd: dir, portable: true }, ['.']);
    const client = api(opts);
    const app = await client.post<Application>('/v1/applications', { name, source: { kind: 'upload' } });
    const form = new FormData();
    const { readFile } = await import('node:fs/promises');
    form.append('file', new Blob([await readFile(archive)], { type: 'application/gzip' }), 'source.tar.gz');
    await client.request('POST', `/v1/applications/${seg(app.id)}/source`, { form });
    return app;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
