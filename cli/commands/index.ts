/**
 * The user-facing commands of `crucible`: everything here calls the HTTP API (spec
 * section 1), with the credential order of spec section 5 rule 8. `crucible mcp` serves
 * the assistant tools over stdio.
 */
import type { Command } from 'commander';
import { registerApplicationCommands } from './applications.js';
import { registerAuthCommands } from './auth.js';
import { registerBuildCommands } from './builds.js';
import { registerEpisodeCommands } from './episodes.js';
import { registerEvaluationCommands } from './evaluations.js';
import { registerExportCommands } from './exports.js';
import { registerKeyCommands } from './keys.js';
import { registerMemberCommands } from './members.js';
import { registerOpenApiCommand } from './openapi.js';
import { registerProfileCommands } from './profiles.js';
import { registerWorldCommands } from './worlds.js';
import { registerWorldImportCommand } from './worlds-import.js';

/** Adds the client commands to the `crucible` program. */
export function registerClientCommands(program: Command): void {
  // `crucible ... | head` closes the pipe early: that is not an error of the command
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  registerAuthCommands(program);
  registerApplicationCommands(program);
  registerBuildCommands(program);
  registerWorldCommands(program);
  registerWorldImportCommand(program);
  registerProfileCommands(program);
  registerEvaluationCommands(program);
  registerEpisodeCommands(program);
  registerExportCommands(program);
  registerKeyCommands(program);
  registerMemberCommands(program);
  registerOpenApiCommand(program);
  program
    .command('mcp')
    .description('serve the MCP tools waiting_turns and take_action over stdio (key and address as for every command)')
    .option('--url <address>', 'server address (else SERVICE_URL, the saved sign-in, http://localhost:8080)')
    .option('--api-key <key>', 'API key (else SERVICE_API_KEY, then the saved sign-in)')
    .action(async (opts: { url?: string; apiKey?: string }) => (await import('../mcp/server.js')).runStdioServer(opts));
}
