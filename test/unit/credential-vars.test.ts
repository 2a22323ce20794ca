import { expect } from 'chai';
import { loadConfig } from '../../core/config.js';
import {
  DEFAULT_CREDENTIAL_VARS,
  assertCredentialVar,
  isServiceVariable,
  parseCredentialVars,
} from '../../core/credential-vars.js';
import { ServiceError } from '../../core/errors.js';

/** Issue 13 item 7: which variables a tenant's credential reference may name. */
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
