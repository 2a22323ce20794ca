/**
 * The user-facing commands of `crucible`: everything here calls the HTTP API (spec
 * section 1), with the credential order of spec section 5 rule 8. `crucible mcp` serves
 * the assistant tools over stdio.
 *
 * Each command is made here from its name, arguments and description alone; the module
 * that gives it its options, subcommands and action (and the modules that one needs: the
 * API client, tables, progress bars, the MCP SDK) is loaded only when the command is run
 * or its help is asked for, by commander's preSubcommand hook. `crucible --version` and
 * `--help` load none of them, `crucible runs list` only evaluations.ts and its imports
 * (bench/cli-startup.ts, BENCHMARKS.md).
 */
import type { Command } from 'commander';

/** Gives a command made below its options, subcommands and action. */
type Fill = (cmd: Command) => void;

interface LazyCommand {
  /** The name and arguments, as commander's `.command()` takes them. */
  usage: string;
  alias?: string;
  description: string;
  /** Whether the command has options of its own: `--help` lists it as `name [options]`. */
  options?: boolean;
  fill: () => Promise<Fill>;
}

const mcp: Fill = (cmd) =>
  cmd
    .option('--url <address>', 'server address (else SERVICE_URL, the saved sign-in, http://localhost:8080)')
    .option('--api-key <key>', 'API key (else SERVICE_API_KEY, then the saved sign-in)')
    .action(async (opts: { url?: string; apiKey?: string }) => (await import('../mcp/server.js')).runStdioServer(opts));

/** The client commands in the order `crucible --help` lists them. */
const COMMANDS: readonly LazyCommand[] = [
  {
    usage: 'login',
    description: 'sign this terminal in: shows a code to approve in the console, then saves the key (mode 0600)',
    options: true,
    fill: async () => (await import('./auth.js')).registerLoginCommand,
  },
  {
    usage: 'logout',
    description: 'forget the saved sign-in (the key itself stays valid until an admin revokes it)',
    options: true,
    fill: async () => (await import('./auth.js')).registerLogoutCommand,
  },
  {
    usage: 'whoami',
    description: 'who the current key is: project, organization, scopes, plan, and where the key came from',
    options: true,
    fill: async () => (await import('./auth.js')).registerWhoamiCommand,
  },
  {
    usage: 'applications',
    alias: 'apps',
    description: 'applications: software with pinned source and images',
    fill: async () => (await import('./applications.js')).registerApplicationCommands,
  },
  {
    usage: 'builds',
    description: 'world builds: turn an application into a world version',
    fill: async () => (await import('./builds.js')).registerBuildCommands,
  },
  {
    usage: 'jobs',
    description: 'server jobs: long work with pause, resume, stop, retry',
    fill: async () => (await import('./builds.js')).registerJobCommands,
  },
  {
    usage: 'worlds',
    description: 'worlds and their versions',
    fill: async () => {
      const [worlds, imports] = await Promise.all([import('./worlds.js'), import('./worlds-import.js')]);
      return (cmd) => {
        worlds.registerWorldCommands(cmd);
        imports.registerWorldImportCommand(cmd);
      };
    },
  },
  {
    usage: 'scenarios',
    description: 'scenarios (jobs) of a world version',
    fill: async () => (await import('./worlds.js')).registerScenarioCommands,
  },
  {
    usage: 'profiles',
    description: 'agent profiles, versioned by name (name@vN)',
    fill: async () => (await import('./profiles.js')).registerProfileCommands,
  },
  {
    usage: 'evaluations',
    alias: 'eval',
    description: 'start runs: profiles attempting the scenarios of a world version',
    fill: async () => (await import('./evaluations.js')).registerEvaluationCommands,
  },
  {
    usage: 'runs',
    description: 'runs and their episodes',
    fill: async () => (await import('./evaluations.js')).registerRunCommands,
  },
  {
    usage: 'compare <run_a> [run_b]',
    description:
      'compare the profiles of one run, or two runs on the same pinned world version (over the scenarios both ran)',
    options: true,
    fill: async () => (await import('./evaluations.js')).registerCompareCommand,
  },
  {
    usage: 'episodes',
    description: 'episodes: one attempt of a profile at a scenario',
    fill: async () => (await import('./episodes.js')).registerEpisodeCommands,
  },
  {
    usage: 'exports',
    description: 'datasets and bundles (artifacts)',
    fill: async () => (await import('./exports.js')).registerExportCommands,
  },
  {
    usage: 'keys',
    description: 'API keys of the project (admin)',
    fill: async () => (await import('./keys.js')).registerKeyCommands,
  },
  {
    usage: 'members',
    description: "the project's people and their roles (owners and admins)",
    fill: async () => (await import('./members.js')).registerMemberCommands,
  },
  {
    usage: 'openapi',
    description:
      "print the API description as JSON: the server's /openapi.json, or with --local this installation's own",
    options: true,
    fill: async () => (await import('./openapi.js')).registerOpenApiCommand,
  },
  {
    usage: 'mcp',
    description: 'serve the MCP tools waiting_turns and take_action over stdio (key and address as for every command)',
    options: true,
    fill: async () => mcp,
  },
];

/** The commands made by lazyCommand whose module has not been loaded yet. */
const pending = new WeakMap<Command, LazyCommand>();

/** Makes a command from its name, arguments and description; its module is loaded when it runs. */
export function lazyCommand(parent: Command, spec: LazyCommand): Command {
  const cmd = parent.command(spec.usage).description(spec.description);
  if (spec.alias) cmd.alias(spec.alias);
  pending.set(cmd, spec);
  return cmd;
}

/** Gives a command made by lazyCommand its options, subcommands and action, once. */
async function fill(cmd: Command): Promise<void> {
  const spec = pending.get(cmd);
  if (!spec) return;
  pending.delete(cmd);
  (await spec.fill())(cmd);
}

/** Adds the client commands to the `crucible` program; each loads its module when it runs. */
export function registerClientCommands(program: Command): void {
  // `crucible ... | head` closes the pipe early: that is not an error of the command
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  for (const spec of COMMANDS) lazyCommand(program, spec);
  // `--help` lists a command with options as `name [options]`, as it did when they were made at once
  const help = program.createHelp();
  program.configureHelp({
    subcommandTerm: (cmd) => {
      const term = help.subcommandTerm(cmd);
      if (!pending.get(cmd)?.options) return term;
      const name = cmd.name() + (cmd.aliases()[0] ? `|${cmd.aliases()[0]}` : '');
      return `${name} [options]${term.slice(name.length)}`;
    },
  });
  program.hook('preSubcommand', (_program, sub) => fill(sub));
  // commander's own `help <command>` prints the command's help without that hook: this one fills it first
  program.helpCommand(false);
  program
    .command('help [command]')
    .description('display help for command')
    .allowExcessArguments()
    .action(async (name: string | undefined) => {
      const sub =
        name === undefined ? undefined : program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      if (!sub) return program.help({ error: name !== undefined });
      await fill(sub);
      sub.help();
    });
}
