import { expect } from 'chai';
import { loadConfig } from '../../core/config.js';
import { ServiceError } from '../../core/errors.js';
import { healthHandlers } from '../../scheduler/health.js';

/** GET /v1/health's body for a configuration, with no workers. */
async function health(env: Record<string, string>): Promise<Record<string, unknown>> {
  const deps = { config: loadConfig(env), workers: { probe: async () => [] }, adapters: { engines: {} } };
  const reply = await healthHandlers.get_health!({} as never, deps as never);
  return (reply as { body: Record<string, unknown> }).body;
}

/** SERVICE_IDP_AUTHORIZATION_URL: where the console's identity-provider button sends the browser. */
describe('identity provider authorization endpoint (SERVICE_IDP_AUTHORIZATION_URL)', () => {
  it("defaults to Google's, matching the default issuer", () => {
    const c = loadConfig({});
    expect(c.idpAuthorizationUrl).to.equal('https://accounts.google.com/o/oauth2/v2/auth');
    expect(c.idpIssuer).to.equal('https://accounts.google.com');
  });

  it('takes any https URL, and http only on a loopback host', () => {
    for (const ok of [
      'https://login.example.com/oauth2/authorize?tenant=a',
      'http://127.0.0.1:9000/authorize',
      'http://localhost:9000/authorize',
      'http://[::1]:9000/authorize',
    ])
      expect(loadConfig({ SERVICE_IDP_AUTHORIZATION_URL: ok }).idpAuthorizationUrl, ok).to.equal(new URL(ok).href);
  });

  it('refuses plain http to another host, other schemes, credentials, fragments and junk', () => {
    for (const bad of [
      'http://idp.example.com/authorize',
      'http://127.0.0.1.evil.example/authorize',
      'javascript:alert(1)',
      'data:text/html,hi',
      'https://user:pw@idp.example.com/authorize',
      'https://idp.example.com/authorize#x',
      'not a url',
      `https://idp.example.com/${'a'.repeat(2100)}`,
    ])
      expect(() => loadConfig({ SERVICE_IDP_AUTHORIZATION_URL: bad }), bad).to.throw(
        ServiceError,
        /SERVICE_IDP_AUTHORIZATION_URL/,
      );
  });

  it('GET /v1/health publishes it only with a client id', async () => {
    expect(await health({ SERVICE_IDP_AUTHORIZATION_URL: 'https://login.example.com/authorize' })).to.include({
      idp_client_id: null,
      idp_authorization_url: null,
    });
    expect(
      await health({
        SERVICE_IDP_CLIENT_ID: 'abc.apps.example',
        SERVICE_IDP_AUTHORIZATION_URL: 'https://login.example.com/authorize',
      }),
    ).to.include({ idp_client_id: 'abc.apps.example', idp_authorization_url: 'https://login.example.com/authorize' });
    expect(await health({ SERVICE_IDP_CLIENT_ID: 'abc.apps.example' })).to.include({
      idp_authorization_url: 'https://accounts.google.com/o/oauth2/v2/auth',
    });
  });
});
