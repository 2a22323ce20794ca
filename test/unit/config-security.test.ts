import { expect } from 'chai';
import { loadConfig } from '../../core/config.js';
import {
  DEFAULT_CREDENTIAL_VARS,
  assertCredentialVar,
  isServiceVariable,
  parseCredentialVars,
} from '../../core/credential-vars.js';
import { ServiceError } from '../../core/errors.js';

/** Issue 13 items 7 and 8: which variables a tenant's credential reference may name, and whose X-Forwarded-For counts. */
describe('credential variables (SERVICE_CREDENTIAL_VARS)', () => {
  const refusal = (name: string, allowed: readonly string[]): ServiceError => {
    try {
      assertCredentialVar(name, allowed);
    } catch (err) {
      return err as ServiceError;
    }
    throw new Error(`${name} was allowed`);
  };

  it('defaults to CRUCIBLE_AGENT_* and parses names and PREFIX_* patterns', () => {
    expect(loadConfig({}).credentialVars).to.deep.equal(DEFAULT_CREDENTIAL_VARS);
    expect(DEFAULT_CREDENTIAL_VARS).to.deep.equal(['CRUCIBLE_AGENT_*']);
    expect(parseCredentialVars(' AGENT_* , MY_KEY ')).to.deep.equal(['AGENT_*', 'MY_KEY']);
    for (const bad of ['*', 'A B', 'A*B', '$HOME', 'KEY=1'])
      expect(() => parseCredentialVars(bad), bad).to.throw(ServiceError, /SERVICE_CREDENTIAL_VARS/);
  });

  it('allows exactly the listed names and prefixes', () => {
    const allowed = parseCredentialVars('AGENT_*,MY_KEY');
    assertCredentialVar('AGENT_OPENAI', allowed);
    assertCredentialVar('MY_KEY', allowed);
    for (const name of ['MY_KEY2', 'MY_KE', 'XAGENT_1', 'agent_x'])
      expect(refusal(name, allowed).status, name).to.equal(422);
    const empty = refusal('CRUCIBLE_AGENT_X', []);
    expect(empty.message).to.match(/allowed: none/);
  });

  it("never allows the service's own secrets, even when the operator's list names them", () => {
    const greedy = parseCredentialVars(
      'STRIPE_*,SERVICE_*,OPENAI_API_KEY,MONGODB_URL,REDIS_URL,DATABASE_URL,PATH,HOME,APP_DATABASE_URL,GRPC_TLS_KEY,PGPASSWORD,AWS_SECRET_ACCESS_KEY',
    );
    for (const name of [
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'SERVICE_OPERATORS',
      'SERVICE_IDP_CLIENT_ID',
      'OPENAI_API_KEY',
      'MONGODB_URL',
      'REDIS_URL',
      'DATABASE_URL',
      'APP_DATABASE_URL',
      'PATH',
      'HOME',
      'GRPC_TLS_KEY',
      'PGPASSWORD',
      'AWS_SECRET_ACCESS_KEY',
      'stripe_secret_key',
    ]) {
      expect(isServiceVariable(name), name).to.equal(true);
      const e = refusal(name, greedy);
      expect(e.code, name).to.equal('validation_failed');
      expect(e.message).to.match(/one of the service's own variables/);
    }
    expect(isServiceVariable('CRUCIBLE_AGENT_OPENAI_KEY')).to.equal(false);
  });

  it('every variable the configuration reads is a service variable', () => {
    const read: string[] = [];
    const spy = new Proxy({} as Record<string, string | undefined>, {
      get: (_t, name) => {
        if (typeof name === 'string') read.push(name);
        return undefined;
      },
    });
    loadConfig(spy);
    expect(read.length).to.be.greaterThan(20);
    expect(read.filter((n) => !isServiceVariable(n))).to.deep.equal([]);
  });

  it('the refusal names the field and what is allowed', () => {
    const e = refusal('OPENAI_API_KEY', DEFAULT_CREDENTIAL_VARS);
    expect(e.detail).to.deep.equal([{ field: 'env_var', message: e.message }]);
    expect(e.message).to.match(/allowed: CRUCIBLE_AGENT_\*/);
  });
});

describe('trusted proxies (SERVICE_TRUSTED_PROXIES)', () => {
  it('trusts nobody by default, the private ranges with SERVICE_TRUST_PROXY=true, or exactly the list', () => {
    expect(loadConfig({}).trustedProxies).to.deep.equal([]);
    expect(loadConfig({ SERVICE_TRUST_PROXY: 'true' }).trustedProxies).to.deep.equal([
      'loopback',
      'linklocal',
      'uniquelocal',
    ]);
    expect(
      loadConfig({ SERVICE_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1, ::1, fd00::/8', SERVICE_TRUST_PROXY: 'true' })
        .trustedProxies,
    ).to.deep.equal(['10.0.0.0/8', '192.0.2.1', '::1', 'fd00::/8']);
  });

  it('refuses an entry that is no address or range', () => {
    for (const bad of ['*', 'proxy.example.com', '10.0.0.0/33', '1.2.3.4/8/1', 'true'])
      expect(() => loadConfig({ SERVICE_TRUSTED_PROXIES: bad }), bad).to.throw(ServiceError, /SERVICE_TRUSTED_PROXIES/);
    expect(() => loadConfig({ SERVICE_TRUST_PROXY: 'maybe' })).to.throw(ServiceError, /SERVICE_TRUST_PROXY/);
  });
});
