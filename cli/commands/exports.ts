import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ReadableStream } from 'node:stream/web';
import type { Answer, Artifact } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, collect, common, fields, run, show, table, type CommonOptions } from './output.js';

/** Fills `crucible exports`: dataset, bundle, list, get, download. */
export function registerExportCommands(exportsCmd: Command): void {
  common(exportsCmd.command('dataset'))
    .description('export the episodes of runs as a dataset (holdout cannot be exported)')
    .requiredOption('--run <run_id>', 'a run to export (repeatable)', collect)
    .option('--split <split>', 'train or dev (repeatable; default train)', collect)
    .option('--all', 'include episodes that are not verified')
    .action(
      run(async (opts: CommonOptions & { run: string[]; split?: string[]; all?: boolean }) => {
        const answer = await api(opts).post<Answer>('/v1/dataset-exports', {
          run_ids: opts.run,
          splits: opts.split,
          verified_only: !opts.all,
        });
        show(opts, answer, () => fields(answer));
      }),
    );

  common(exportsCmd.command('bundle <wv_id>'))
    .description('package a world version as a bundle')
    .option('--include-images', 'include the service images')
    .action(
      run(async (wvId: string, opts: CommonOptions & { includeImages?: boolean }) => {
        const answer = await api(opts).post<Answer>(
          `/v1/world-versions/${seg(wvId)}/bundle`,
          {},
          { include_images: Boolean(opts.includeImages) },
        );
        show(opts, answer, () => fields(answer));
      }),
    );

  common(exportsCmd.command('list'))
    .description('list datasets and bundles')
    .option('--kind <kind>', 'only artifacts of this kind')
    .action(
      run(async (opts: CommonOptions & { kind?: string }) => {
        const list = await api(opts).list<Artifact>('/v1/artifacts', { kind: opts.kind });
        show(opts, list, () =>
          table(list, [
            ['id', (a) => a.id, 'id'],
            ['kind', (a) => a.kind, 'text'],
            ['status', (a) => a.status],
            ['bytes', (a) => a.size_bytes ?? ''],
            ['created', (a) => a.created_at, 'time'],
          ]),
        );
      }),
    );

  common(exportsCmd.command('get <art_id>'))
    .description('show an artifact record')
    .action(
      run(async (artId: string, opts: CommonOptions) => {
        const a = await api(opts).get<Answer>(`/v1/artifacts/${seg(artId)}`);
        show(opts, a, () => fields(a));
      }),
    );

  common(exportsCmd.command('download <art_id>'))
    .description('download an artifact file')
    .requiredOption('-o, --output <file>', 'where to write it')
    .action(
      run(async (artId: string, opts: CommonOptions & { output: string }) => {
        const res = await api(opts).fetchRaw('GET', `/v1/artifacts/${seg(artId)}/download`);
        if (!res.body) throw new Error('the download answered no body');
        await pipeline(Readable.fromWeb(res.body as ReadableStream<Uint8Array>), createWriteStream(opts.output));
        show(opts, { artifact: artId, file: opts.output }, () => `Wrote ${opts.output}.\n`);
      }),
    );
}
