import { expect } from 'chai';
import { addressKind, allowedPrivate, loadConfig, parseGitRemote, remoteAddressProblem } from '../../core/index.js';

describe('git remotes: which addresses a tenant git source may reach', () => {
  it('calls public only what is on the internet, IPv6 forms that embed a private IPv4 address included', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1'])
      expect(addressKind(a), a).to.equal('public');
    const kinds: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.9.9.9': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      '100.64.0.1': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '198.18.0.1': 'benchmarking',
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'linkLocal',
      'fd00::1': 'uniqueLocal',
      'fec0::1': 'siteLocal',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:7f00:1': 'loopback',
      '::ffff:169.254.169.254': 'linkLocal',
      '::7f00:1': 'ipv4Compatible',
      '64:ff9b::a00:1': 'private',
      '::ffff:0:a00:1': 'private',
      '2002:7f00:1::1': 'loopback',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2': 'teredo',
      'not-an-address': 'invalid',
    };
    for (const [a, kind] of Object.entries(kinds)) expect(addressKind(a), a).to.equal(kind);
  });

  it('lets SERVICE_GIT_ALLOW_PRIVATE name addresses, ranges, host names, domains, or everything', () => {
    const allow = loadConfig({
      SERVICE_GIT_ALLOW_PRIVATE: '10.0.0.0/8, ::1, Git.Internal, *.corp.example',
    }).gitAllowPrivate;
    expect(allow).to.deep.equal(['10.0.0.0/8', '::1', 'git.internal', '*.corp.example']);
    expect(allowedPrivate('a.example', '10.9.9.9', allow)).to.equal(true);
    expect(allowedPrivate('a.example', '::ffff:10.9.9.9', allow)).to.equal(true); // mapped matches IPv4 ranges
    expect(allowedPrivate('a.example', '::1', allow)).to.equal(true);
    expect(allowedPrivate('a.example', '127.0.0.1', allow)).to.equal(false);
    expect(allowedPrivate('git.internal', '192.168.0.5', allow)).to.equal(true);
    expect(allowedPrivate('src.corp.example', '192.168.0.5', allow)).to.equal(true);
    expect(allowedPrivate('corp.example.evil.com', '192.168.0.5', allow)).to.equal(false);
    expect(allowedPrivate('x', '172.16.0.1', ['*'])).to.equal(true);
    for (const bad of ['10.0.0.0/33', 'http://x', 'a b', '10.0.0.1/8/1', '*.', '_x'])
      expect(() => loadConfig({ SERVICE_GIT_ALLOW_PRIVATE: bad }), bad).to.throw(/SERVICE_GIT_ALLOW_PRIVATE/);
    expect(loadConfig({}).gitAllowPrivate).to.deep.equal([]);
  });

  it('refuses a host unless every address it resolves to is public or allowed, and never says which', () => {
    expect(remoteAddressProblem('git.example', ['93.184.216.34'], [])).to.equal(null);
    const mixed = remoteAddressProblem('git.example', ['93.184.216.34', '10.0.0.7'], []);
    expect(mixed).to.match(/does not resolve, or resolves to an address that is not public/);
    expect(mixed).not.to.contain('10.0.0.7');
    expect(remoteAddressProblem('git.example', [], [])).to.match(/does not resolve/);
    expect(remoteAddressProblem('git.example', ['10.0.0.7'], ['git.example'])).to.equal(null);
    expect(remoteAddressProblem('127.0.0.1', ['127.0.0.1'], [])).to.match(/"127.0.0.1" is a loopback address/);
    expect(remoteAddressProblem('169.254.169.254', ['169.254.169.254'], [])).to.match(/link-local/);
  });

  it('reads https and git@ URLs as git will connect, and refuses hosts that are neither names nor addresses', () => {
    expect(parseGitRemote('https://2130706433/r.git')).to.include({
      host: '127.0.0.1',
      url: 'https://127.0.0.1/r.git',
    });
    expect(parseGitRemote('https://0x7f.1/r.git')).to.include({ host: '127.0.0.1' });
    expect(parseGitRemote('https://[::ffff:127.0.0.1]:8443/r.git')).to.include({ host: '::ffff:7f00:1', port: 8443 });
    expect(parseGitRemote('https://GitHub.com/a/b.git')).to.include({ host: 'github.com', port: 443 });
    expect(parseGitRemote('git@github.com:a/b.git')).to.deep.equal({
      transport: 'ssh',
      host: 'github.com',
      port: 22,
      url: 'git@github.com:a/b.git',
      path: 'a/b.git',
    });
    for (const bad of ['git@-oProxyCommand=touch_x:a', 'git@host:-upload-pack=x', 'https://a_b.example/x', 'ftp://x/y'])
      expect(parseGitRemote(bad), bad).to.equal(null);
  });

  it('reads the ssh key settings (both or neither, absolute, no quotes) and the data quota of containers', () => {
    expect(loadConfig({}).gitSsh).to.equal(null);
    expect(loadConfig({ SERVICE_GIT_SSH_KEY: '/k/id', SERVICE_GIT_KNOWN_HOSTS: '/k/known' }).gitSsh).to.deep.equal({
      key: '/k/id',
      knownHosts: '/k/known',
    });
    expect(() => loadConfig({ SERVICE_GIT_SSH_KEY: '/k/id' })).to.throw(/SERVICE_GIT_KNOWN_HOSTS must be set too/);
    expect(() => loadConfig({ SERVICE_GIT_SSH_KEY: "/k/i'd", SERVICE_GIT_KNOWN_HOSTS: '/k/known' })).to.throw(
      /without quotes/,
    );
    expect(loadConfig({}).sandboxLimits.dataMb).to.equal(128);
    expect(loadConfig({ SANDBOX_MEMORY_MB: '64' }).sandboxLimits.dataMb).to.equal(32);
    expect(loadConfig({ SANDBOX_DATA_MB: '300', SANDBOX_MEMORY_MB: '1024' }).sandboxLimits.dataMb).to.equal(300);
    expect(() => loadConfig({ SANDBOX_DATA_MB: '512' })).to.throw(/must be less than SANDBOX_MEMORY_MB/);
  });
});
