import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import type { Identity } from '../../proto/index.js';
import { ApiClient, ApiError, resolveCredentials } from '../api-client.js';
import { configPath, removeSignIn, writeSignIn } from '../config-file.js';
import { common, fields, printJson, run, show, type CommonOptions } from './output.js';

interface LoginStarted {
  user_code: string;
  device_code: string;
  verification_url: string;
  expires_in: number;
  interval: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The terminal's name, which the approved key is named after: `user@host`. */
function terminalName(): string {
  try {
    return `${userInfo().username}@${hostname()}`.slice(0, 200);
  } catch {
    return hostname().slice(0, 200);
  }
}

/**
 * Terminal sign-in (spec section 5 rule 7): starts a request, shows the code and where to
 * approve it, polls at the interval the server gave until it is approved, denied or
 * expired, and saves the key handed out once in the config file (mode 0600).
 */
async function signIn(opts: CommonOptions & { client?: string }): Promise<void> {
  const { baseUrl } = resolveCredentials({ url: opts.url });
  const anonymous = new ApiClient(baseUrl, null);
  const client = opts.client ?? terminalName();
  const started = await anonymous.request<LoginStarted>('POST', '/v1/cli/logins', {
    body: { client },
    anonymous: true,
  });
  const { user_code, verification_url, expires_in } = started;
  if (opts.json)
    process.stdout.write(`${JSON.stringify({ status: 'pending', user_code, verification_url, expires_in })}\n`);
  else {
    process.stdout.write(
      `To sign in this terminal (${client}) to ${baseUrl}:\n` +
        `  1. open ${verification_url}\n` +
        `  2. check that it shows the code ${user_code}, and approve it.\n` +
        `Waiting for approval (the request expires in ${Math.round(expires_in / 60)} minutes)...\n`,
    );
  }
  let intervalMs = Math.max(1, started.interval) * 1000;
  const deadline = Date.now() + expires_in * 1000;
  for (;;) {
    await sleep(intervalMs);
    let answer: { status: string; api_key?: string };
    try {
      answer = await anonymous.request('POST', '/v1/cli/logins/poll', {
        body: { device_code: started.device_code },
        anonymous: true,
      });
    } catch (err) {
      // asked too often: wait longer between polls, as a device flow's slow_down asks
      if (err instanceof ApiError && err.status === 429) {
        intervalMs += 5000;
        continue;
      }
      throw err;
    }
    if (answer.status === 'pending') {
      if (Date.now() > deadline + intervalMs)
        throw new Error('the sign-in request expired; run `crucible login` again');
      continue;
    }
    if (answer.status === 'denied') throw new Error('the sign-in request was denied');
    if (answer.status === 'expired') throw new Error('the sign-in request expired; run `crucible login` again');
    if (answer.status !== 'approved' || !answer.api_key)
      throw new Error('the sign-in was approved but its key was already handed out; run `crucible login` again');
    const file = writeSignIn({
      base_url: baseUrl,
      api_key: answer.api_key,
      client,
      saved_at: new Date().toISOString(),
    });
    const me = await new ApiClient(baseUrl, answer.api_key).get<Identity>('/v1/me');
    if (opts.json)
      printJson({
        status: 'approved',
        base_url: baseUrl,
        config: file,
        project_id: me.project_id,
        project: me.project,
        organization: me.organization,
        scopes: me.scopes,
      });
    else
      process.stdout.write(
        `Signed in to ${me.organization} / ${me.project} (${me.project_id}) with scopes ${me.scopes.join(', ')}.\nKey saved in ${file} (readable by you only).\n`,
      );
    return;
  }
}

/** Fills `crucible login`. */
export function registerLoginCommand(login: Command): void {
  common(login)
    .option('--client <name>', 'the terminal name the key is named after (default user@host)')
    .action(run(async (opts: CommonOptions & { client?: string }) => signIn(opts)));
}

/** Fills `crucible logout`. */
export function registerLogoutCommand(logout: Command): void {
  common(logout).action(
    run(async (opts: CommonOptions) => {
      const file = configPath();
      const removed = removeSignIn();
      show(opts, { removed, config: file }, () =>
        removed ? `Signed out: removed ${file}.\n` : `Not signed in (no ${file}).\n`,
      );
    }),
  );
}

/** Fills `crucible whoami`. */
export function registerWhoamiCommand(whoami: Command): void {
  common(whoami).action(
    run(async (opts: CommonOptions) => {
      const creds = resolveCredentials({ apiKey: opts.apiKey, url: opts.url });
      const me = await ApiClient.from(opts).get<Identity>('/v1/me');
      show(opts, { ...me, base_url: creds.baseUrl, key_source: creds.keySource }, () =>
        fields({
          server: creds.baseUrl,
          organization: me.organization,
          project: `${me.project} (${me.project_id})`,
          scopes: me.scopes.join(', '),
          plan: me.plan,
          user: me.user?.email ?? me.user,
          key_from: creds.keySource,
        }),
      );
    }),
  );
}
