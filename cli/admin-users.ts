import { chooseAdapters } from '../core/index.js';
import { Collections } from '../core/index.js';
import type { Config } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import { createLogger } from '../core/index.js';
import { createUser, ensureAccountIndexes, findUserByEmail, hashPassword, normalizeEmail } from '../accounts/index.js';
import { createPasswordLink, ensureWorkspaceIndexes, loadProject, type MembershipDoc } from '../accounts/index.js';
import { linkTtlMs, type PasswordLinkOut } from './admin.js';

export const MEMBER_ROLES = ['member', 'admin', 'owner'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export interface AddUserOptions {
  project: string;
  email: string;
  name?: string;
  role: MemberRole;
  /** False with `--no-password`: the user signs in through the identity provider only. */
  password: boolean;
  /** `--password-link`: no password is asked; an account without one gets a one-time link to set it. */
  passwordLink?: boolean;
  /** How long that link lasts, in hours (default 24, at most 168). */
  linkHours?: number;
}

export interface AddUserResult {
  user_id: string;
  email: string;
  project_id: string;
  organization_id: string;
  role: MemberRole;
  /** False when the e-mail address already had an account; its sign-in methods are left as they were. */
  created_user: boolean;
  /** Whether the account can sign in with a password. */
  has_password: boolean;
  /** With `--password-link`, for an account without a password: the link that sets it (once, until it expires). */
  password_link: PasswordLinkOut | null;
}

/**
 * Adds a user to an existing project, written straight into the installation's store.
 * A new account gets the password `readPassword` supplies (10 to 200 characters), or none
 * with `--no-password`, in which case it signs in through the identity provider with the
 * same e-mail address. With `--password-link` nothing is asked: an account without a
 * password gets a one-time link that sets it in the console (and signs the person in). An existing account keeps its password; it only gains the
 * membership. Fails when the project does not exist or the user is already in it.
 */
export async function adminAddUser(
  config: Config,
  opts: AddUserOptions,
  readPassword: () => Promise<string>,
): Promise<AddUserResult> {
  const email = normalizeEmail(opts.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254)
    throw new Error(`--email must be an e-mail address, got "${opts.email}"`);
  if (!MEMBER_ROLES.includes(opts.role)) throw new Error(`--role must be one of ${MEMBER_ROLES.join(', ')}`);
  const name = opts.name?.trim() || email;
  if (name.length > 200) throw new Error('--name must be at most 200 characters');
  const ttlMs = linkTtlMs(opts.linkHours);
  const adapters = await chooseAdapters(config, createLogger('silent'));
  try {
    const store = adapters.store;
    await ensureWorkspaceIndexes(store);
    await ensureAccountIndexes(store);
    const { project, organization } = await loadProject(store, opts.project).catch((err: unknown) => {
      if (err instanceof ServiceError && err.code === 'not_found')
        throw new Error(`there is no project ${opts.project}`);
      throw err;
    });
    let user = await findUserByEmail(store, email);
    const createdUser = !user;
    if (
      user &&
      (await store.findOne<MembershipDoc>(Collections.memberships, { user_id: user._id, project_id: project._id }))
    ) {
      throw new Error(`${email} is already a member of project ${project._id}`);
    }
    if (!user) {
      let passwordHash: string | null = null;
      if (opts.password && !opts.passwordLink) {
        const password = await readPassword();
        if (password.length < 10 || password.length > 200) throw new Error('the password must be 10 to 200 characters');
        passwordHash = await hashPassword(password);
      }
      user = await createUser(store, { email, name, passwordHash });
    }
    await store.insert<MembershipDoc>(Collections.memberships, {
      _id: newId('mem'),
      user_id: user._id,
      organization_id: organization._id,
      project_id: project._id,
      role: opts.role,
      created_at: nowIso(),
    });
    const link =
      opts.passwordLink && !user.password_hash ? await createPasswordLink(store, config, user._id, ttlMs) : null;
    return {
      user_id: user._id,
      email,
      project_id: project._id,
      organization_id: organization._id,
      role: opts.role,
      created_user: createdUser,
      has_password: user.password_hash !== null,
      password_link: link,
    };
  } finally {
    await adapters.close();
  }
}

type Input = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/**
 * Reads the new password: at a terminal, asked twice without echo; otherwise the first
 * line of standard input (for scripts: `printf '%s\n' "$PW" | crucible admin add-user ...`).
 */
export async function readNewPassword(
  input: Input = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return firstLine(input);
  const first = await readHidden(input, output, 'Password (10 or more characters): ');
  const again = await readHidden(input, output, 'Repeat the password: ');
  if (first !== again) throw new Error('the two passwords differ');
  return first;
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** One line typed at the terminal in raw mode, so nothing is echoed. */
function readHidden(input: Input, output: NodeJS.WritableStream, prompt: string): Promise<string> {
  output.write(prompt);
  input.setRawMode!(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err: Error | null) => {
      input.removeListener('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}
