import { expect } from 'chai';
import { loadOpenApiDocument } from '../../gateway/openapi.js';
import { scopesAllow, type AccessRule, type Scope } from '../../core/principal.js';
import { startTestService, client, type TestService } from '../support/service.js';

/**
 * The scope matrix of spec section 5 for every operation, driven by the `x-access` data of
 * gateway/openapi.yaml: each operation is called with each kind of key, and the answer must
 * be 403 exactly when the scopes do not reach (and 401 without a key). What an allowed call
 * answers beyond that (404 for the made-up ids, 422 for the empty body...) is the business
 * of each area's own tests.
 */
const KEY_KINDS: Scope[][] = [['read'], ['write'], ['evaluator'], ['write', 'evaluator'], ['admin'], ['agent']];

interface Op {
  method: string;
  path: string;
  operationId: string;
  rule: AccessRule;
}

function operations(): Op[] {
  const doc = loadOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, { operationId: string; 'x-access': AccessRule }>>;
  };
  const ops: Op[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('operationId' in op)) continue;
      ops.push({
        method: method.toUpperCase(),
        path: concretePath(p),
        operationId: op.operationId,
        rule: op['x-access'],
      });
    }
  }
  return ops;
}

/** Fills path parameters with values their schemas accept but that name nothing. */
function concretePath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (name === 'decision') return 'approve';
    if (name === 'key') return 'key-does-not-exist';
    return `${name}_does_not_exist`;
  });
}

describe('scope matrix for every operation (from x-access)', function () {
  this.timeout(120_000);
  let t: TestService;
  const keys = new Map<string, string>();
  const ops = operations();

  before(async () => {
    // local checkout on: otherwise checkout and plan change answer 403 for every key, which is not about scopes
    t = await startTestService({ SERVICE_LOCAL_CHECKOUT: 'on' });
    const ws = await t.workspace('Matrix');
    for (const scopes of KEY_KINDS) keys.set(scopes.join('+'), await t.key(ws.projectId, scopes));
  });
  after(async () => t?.close());

  it('covers every operation of the document', () => {
    expect(ops.length).to.be.at.least(72);
  });

  it('answers 401 without credentials exactly where the rule is not none', async () => {
    for (const op of ops) {
      if (op.operationId === 'billing_webhook') continue; // signature-checked, not key-checked
      const r = await client(t.url).call(
        op.method,
        op.path,
        op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
        { origin: t.url },
      );
      if (op.rule === 'none') expect(r.status, `${op.operationId} without a key`).to.not.be.oneOf([401, 403]);
      else expect(r.status, `${op.operationId} without a key`).to.equal(401);
      expect(r.body, `${op.operationId} answers JSON with detail on failure`).to.satisfy(
        (b: unknown) => r.status < 400 || (typeof b === 'object' && b !== null && 'detail' in b),
      );
    }
  });

  for (const scopes of KEY_KINDS) {
    it(`a key with ${scopes.join(' + ')} gets 403 exactly where its scopes do not reach`, async () => {
      const key = keys.get(scopes.join('+'))!;
      for (const op of ops) {
        if (op.operationId === 'billing_webhook' || op.operationId === 'delete_session') continue;
        const r = await client(t.url, key).call(
          op.method,
          op.path,
          op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
          { origin: t.url },
        );
        const allowed = op.rule === 'operator' ? false : scopesAllow(op.rule, scopes);
        const label = `${op.method} ${op.path} (${op.operationId}, ${op.rule}) with ${scopes.join('+')}: ${JSON.stringify(r.body)}`;
        if (allowed) expect(r.status, label).to.not.be.oneOf([401, 403]);
        else expect(r.status, label).to.equal(403);
        // 501 marks an operation whose area is not built yet; any other 5xx is a defect.
        expect(r.status === 501 || r.status < 500, label).to.equal(true);
      }
    });
  }
});
