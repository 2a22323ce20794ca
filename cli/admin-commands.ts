import { Option, type Command } from 'commander';
import { registerBackupCommands } from './admin-backup.js';
import type { AddUserOptions } from './admin-users.js';

/** The server's configuration from the environment; core is loaded only by the commands that read it. */
const loadConfig = async () => (await import('../core/index.js')).loadConfig();
// the roles of admin-users.ts's MEMBER_ROLES, spelled out so that registering the command loads nothing
const MEMBER_ROLE_CHOICES: AddUserOptions['role'][] = ['member', 'admin', 'owner'];

/**
 * The configuration of an operator command, which writes the store itself: warns on standard
 * error when no running server uses that store (cli/server-marker.ts).
 */
async function operatorConfig() {
  const config = await loadConfig();
  const warning = (await import('./server-marker.js')).unusedStoreWarning(config);
  if (warning) process.stderr.write(warning);
  return config;
}

/** Fills `crucible admin`: the operator commands, which read the server's environment and write its store. */
export function registerAdminCommands(admin: Command): void {
  admin.enablePositionalOptions();
  registerBackupCommands(admin);
  admin
    .command('create-workspace')
    .description('create an organization with one project and print its first admin API key')
    .requiredOption('--organization <name>', 'organization name (1 to 200 characters)')
    .option('--project <name>', 'project name', 'default')
    .option('--email <address>', 'owner e-mail; the user is created if new')
    .option('--name <name>', "owner's display name")
    .option('--key-name <name>', 'name of the first key', 'first admin key')
    .option('--link-hours <hours>', "how long the owner's link to set a password lasts (1 to 168)", '24')
    .addOption(new Option('--json', 'print JSON'))
    .action(
      async (opts: {
        organization: string;
        project: string;
        email?: string;
        name?: string;
        keyName: string;
        linkHours: string;
        json?: boolean;
      }) => {
        const { adminCreateWorkspace } = await import('./admin.js');
        const out = await adminCreateWorkspace(await operatorConfig(), { ...opts, linkHours: Number(opts.linkHours) });
        if (opts.json) process.stdout.write(`${JSON.stringify(out)}\n`);
        else
          process.stdout.write(
            `Workspace created: organization ${out.organization_id}, project ${out.project_id}\n` +
              `Admin API key (shown once, only a hash is stored):\n  ${out.api_key}\n` +
              (out.password_link
                ? `Owner ${out.owner!.email}: open this link to set the password and sign in to the console\n` +
                  `(works once, until ${out.password_link.expires_at}; only a hash is stored):\n  ${out.password_link.url}\n`
                : out.owner
                  ? `Owner ${out.owner.email} signs in to the console with the account's password.\n`
                  : ''),
          );
      },
    );

  admin
    .command('workers')
    .description(
      'list the world-workers, or drain one (placement skips it, its running episodes finish) or undrain it; needs REDIS_URL',
    )
    .argument('[action]', 'list, drain or undrain', 'list')
    .argument('[worker_id]', 'the worker to drain or undrain')
    .addOption(new Option('--json', 'print JSON'))
    .action(async (action: string, workerId: string | undefined, opts: { json?: boolean }) => {
      if (!['list', 'drain', 'undrain'].includes(action))
        throw new Error(`unknown action "${action}": use list, drain or undrain`);
      if (action !== 'list' && !workerId)
        throw new Error(`crucible admin workers ${action} needs a worker id (see crucible admin workers)`);
      const { adminWorkers } = await import('./admin-workers.js');
      const out = await adminWorkers(
        await loadConfig(),
        action === 'list' ? { kind: 'list' } : { kind: action as 'drain' | 'undrain', id: workerId! },
      );
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(action === 'list' ? out : out[0])}\n`);
        return;
      }
      if (out.length === 0) process.stdout.write('no world-worker is registered\n');
      for (const w of out)
        process.stdout.write(
          `${w.id}  ${w.address}  ${w.status}${w.draining ? ' draining' : ''}  ${w.active}/${w.capacity} episodes  last seen ${w.last_seen_at}\n`,
        );
    });

  const certs = admin
    .command('certs')
    // options after a subcommand's name are the subcommand's (`certs revoke --out DIR`); this
    // needs the same of every command above it (admin, and program below)
    .enablePositionalOptions()
    .description(
      'issue control-plane certificates (mutual TLS between gateway, scheduler and worker roles) into a folder: ' +
        'its ca.pem and ca-key.pem, made the first time, sign <name>.pem and <name>-key.pem per role',
    )
    // not requiredOption: commander would demand it of `certs revoke` too
    .option('--out <dir>', 'the folder of the CA and the certificates (kept on the operator machine; required)')
    .option(
      '--roles <list>',
      'comma-separated role[:name] list, e.g. gateway,scheduler,worker:worker-1,worker:worker-2',
      'gateway,scheduler,worker',
    )
    .option('--days <n>', 'how long the role certificates are valid', '365')
    .addOption(new Option('--json', 'print JSON'))
    .action(async (opts: { out?: string; roles: string; days: string; json?: boolean }) => {
      if (!opts.out) throw new Error("required option '--out <dir>' not specified");
      const days = Number(opts.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650)
        throw new Error('--days must be a whole number from 1 to 3650');
      const { issueCertificateFiles, parseCertSpecs } = await import('./admin-certs.js');
      const out = await issueCertificateFiles(opts.out, parseCertSpecs(opts.roles), days);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(out)}\n`);
        return;
      }
      process.stdout.write(
        `${out.newCa ? 'New CA' : 'CA'} ${out.ca} (its key ca-key.pem stays here: it signs new roles)\n`,
      );
      for (const c of out.certificates)
        process.stdout.write(
          `${c.role} ${c.name} (serial ${c.serial}): CONTROL_PLANE_CA=${out.ca} CONTROL_PLANE_CERT=${c.cert} CONTROL_PLANE_KEY=${c.key}\n`,
        );
      process.stdout.write(`Revocation list ${out.crl}: give it to every role as CONTROL_PLANE_CRL\n`);
    });

  const collect = (value: string, list: string[]) => [...list, value];
  certs
    .command('revoke')
    .description(
      "revoke control-plane certificates: adds them to the CA folder's crl.pem (a CRL signed by its CA), which every " +
        'role given it as CONTROL_PLANE_CRL re-reads within seconds and checks on each call; with no --serial or ' +
        '--cert, writes the list as it stands',
    )
    .requiredOption('--out <dir>', 'the folder of the CA (ca.pem, ca-key.pem) and its crl.pem')
    .option('--serial <hex>', 'the serial number of a certificate to revoke (repeatable)', collect, [])
    .option('--cert <file>', 'a certificate file to revoke, e.g. <dir>/worker-2.pem (repeatable)', collect, [])
    .option(
      '--reason <reason>',
      'unspecified, keyCompromise, affiliationChanged, superseded or cessationOfOperation',
      'unspecified',
    )
    .addOption(new Option('--json', 'print JSON'))
    .action(async (opts: { out: string; serial: string[]; cert: string[]; reason: string; json?: boolean }) => {
      const { revokeCertificates } = await import('./admin-certs.js');
      const out = await revokeCertificates(opts.out, { serials: opts.serial, certs: opts.cert, reason: opts.reason });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(out)}\n`);
        return;
      }
      for (const s of out.added) process.stdout.write(`revoked ${s}\n`);
      for (const s of out.already) process.stdout.write(`${s} was revoked already\n`);
      process.stdout.write(
        `${out.crl} lists ${out.revoked.length} revoked certificate(s). Copy it over every role's CONTROL_PLANE_CRL ` +
          '(in place: cp, not mv); they read it again within seconds.\n',
      );
    });

  admin
    .command('operators')
    .description(
      'list the operators, or name one (add) or take the power away (remove) by e-mail address or user id; the account must exist',
    )
    .argument('[action]', 'list, add or remove', 'list')
    .argument('[who]', "the account's e-mail address or user id (usr_...)")
    .addOption(new Option('--json', 'print JSON'))
    .action(async (action: string, who: string | undefined, opts: { json?: boolean }) => {
      if (!['list', 'add', 'remove'].includes(action))
        throw new Error(`unknown action "${action}": use list, add or remove`);
      if (action !== 'list' && !who)
        throw new Error(`crucible admin operators ${action} needs an e-mail address or a user id (usr_...)`);
      const { adminOperators } = await import('./admin-operators.js');
      const out = await adminOperators(
        await operatorConfig(),
        action === 'list' ? { kind: 'list' } : { kind: action as 'add' | 'remove', who: who! },
      );
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(action === 'list' ? out : out[0])}\n`);
        return;
      }
      if (action === 'list' && out.length === 0)
        process.stdout.write('no operator is named in the store (SERVICE_OPERATOR_SUBJECTS may name more)\n');
      if (action === 'list')
        for (const o of out) process.stdout.write(`${o.id}  ${o.email}  since ${o.since ?? '-'}\n`);
      else
        process.stdout.write(
          `${out[0]!.email} (${out[0]!.id}) ${action === 'add' ? 'is now an operator' : 'is no longer an operator'}.\n`,
        );
    });

  admin
    .command('add-user')
    .description(
      'add a user to an existing project; asks for a password of 10 or more characters unless --no-password or --password-link',
    )
    .requiredOption('--project <id>', 'the project (prj_...) to add the user to')
    .requiredOption('--email <address>', "the user's e-mail address; the account is created if new")
    .option('--name <name>', "the user's display name")
    .addOption(new Option('--role <role>', 'role in the workspace').choices(MEMBER_ROLE_CHOICES).default('member'))
    .option('--no-password', 'no password: the user signs in through the identity provider only')
    .option('--password-link', 'ask no password: print a one-time link with which the user sets it in the console')
    .option('--link-hours <hours>', 'how long that link lasts (1 to 168)', '24')
    .addOption(new Option('--json', 'print JSON'))
    .action(async (opts: Omit<AddUserOptions, 'linkHours'> & { linkHours: string; json?: boolean }) => {
      const { adminAddUser, readNewPassword } = await import('./admin-users.js');
      const out = await adminAddUser(await operatorConfig(), { ...opts, linkHours: Number(opts.linkHours) }, () =>
        readNewPassword(),
      );
      if (opts.json) process.stdout.write(`${JSON.stringify(out)}\n`);
      else
        process.stdout.write(
          `${out.created_user ? 'Account created' : 'Existing account'} ${out.email} (${out.user_id}) added to project ${out.project_id} as ${out.role}.\n` +
            (out.password_link
              ? `Open this link to set the password and sign in to the console (works once, until ${out.password_link.expires_at}; only a hash is stored):\n  ${out.password_link.url}\n`
              : out.has_password
                ? 'It signs in with its e-mail address and password.\n'
                : 'It has no password: it signs in through the identity provider.\n'),
        );
    });
}
