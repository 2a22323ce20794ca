import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_BASE_URL, resolveCredentials } from '../../cli/api-client.js';
import { configPath, readSignIn, removeSignIn, writeSignIn } from '../../cli/config-file.js';

describe('cli: saved sign-in and the credential order (spec section 5 rules 7 and 8)', function () {
  let dir: string;
  let saved: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-cfg-'));
    saved = path.join(dir, 'saved.json');
    writeFileSync(saved, JSON.stringify({ api_key: 'svc_saved000_x', base_url: 'http://saved.example:1' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the file is SERVICE_CONFIG when set, else ~/.config/crucible/config.json', () => {
    expect(configPath({ SERVICE_CONFIG: saved })).to.equal(saved);
    expect(configPath({ HOME: dir })).to.equal(path.join(dir, '.config', 'crucible', 'config.json'));
  });

  it('writes the sign-in readable by its user only: file 0600, created folders 0700, no temp file left', () => {
    const file = path.join(dir, 'a', 'b', 'config.json');
    writeSignIn({ api_key: 'svc_k0000000_x', base_url: 'http://h:1' }, { SERVICE_CONFIG: file });
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).to.equal(0o700);
    expect(statSync(path.join(dir, 'a')).mode & 0o777).to.equal(0o700);
    expect(readdirSync(path.dirname(file))).to.deep.equal(['config.json']);
    expect(readSignIn({ SERVICE_CONFIG: file })).to.deep.equal({ api_key: 'svc_k0000000_x', base_url: 'http://h:1' });
    // an existing file readable by others becomes 0600 when written again
    writeFileSync(file, '{}', { mode: 0o644 });
    writeSignIn({ api_key: 'svc_k1111111_x' }, { SERVICE_CONFIG: file });
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).api_key).to.equal('svc_k1111111_x');
    expect(removeSignIn({ SERVICE_CONFIG: file })).to.equal(true);
    expect(removeSignIn({ SERVICE_CONFIG: file })).to.equal(false);
  });

  it('explicit options win, then the environment, then the saved sign-in, then the default address', () => {
    const env = { SERVICE_API_KEY: 'svc_envenv00_x', SERVICE_URL: 'http://env.example:2', SERVICE_CONFIG: saved };
    expect(resolveCredentials({ apiKey: 'svc_explicit_x', url: 'http://explicit.example:3/' }, env)).to.deep.equal({
      apiKey: 'svc_explicit_x',
      keySource: '--api-key',
      baseUrl: 'http://explicit.example:3',
      urlSource: '--url',
    });
    expect(resolveCredentials({}, env)).to.include({
      apiKey: 'svc_envenv00_x',
      baseUrl: 'http://env.example:2',
      keySource: 'SERVICE_API_KEY',
    });
    expect(resolveCredentials({}, { SERVICE_CONFIG: saved })).to.include({
      apiKey: 'svc_saved000_x',
      baseUrl: 'http://saved.example:1',
      keySource: saved,
    });
    // key and address separately: the address from the environment, the key from the saved sign-in
    expect(resolveCredentials({}, { SERVICE_URL: 'http://env.example:2', SERVICE_CONFIG: saved })).to.include({
      apiKey: 'svc_saved000_x',
      baseUrl: 'http://env.example:2',
    });
    const home = path.join(dir, 'home');
    mkdirSync(home);
    expect(resolveCredentials({}, { HOME: home, SERVICE_CONFIG: path.join(dir, 'missing.json') })).to.deep.equal({
      apiKey: null,
      keySource: null,
      baseUrl: DEFAULT_BASE_URL,
      urlSource: 'default',
    });
  });

  it('a saved file that is not a JSON object counts as no sign-in', () => {
    writeFileSync(saved, '[1, 2]');
    expect(readSignIn({ SERVICE_CONFIG: saved })).to.deep.equal({});
    writeFileSync(saved, 'not json');
    expect(resolveCredentials({}, { SERVICE_CONFIG: saved }).apiKey).to.equal(null);
  });
});
