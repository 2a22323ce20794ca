import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import { collectRefs, getPath, substitute } from '../../world/index.js';

describe('compiler: substitute', () => {
  const vars = {
    order: { id: 'ord_1', total: 49, items: [{ name: 'kettle' }] },
    name: 'Dana',
    ok: true,
    nothing: null,
  };

  it('keeps the type of a value that is the whole string', () => {
    expect(substitute('${order.total}', vars)).to.equal(49);
    expect(substitute('${order.items}', vars)).to.deep.equal([{ name: 'kettle' }]);
    expect(substitute('${ok}', vars)).to.equal(true);
    expect(substitute('${nothing}', vars)).to.equal(null);
  });

  it('formats values inside longer strings', () => {
    expect(substitute('Refund ${order.id}: ${order.total} EUR for ${name}', vars)).to.equal(
      'Refund ord_1: 49 EUR for Dana',
    );
    expect(substitute('item ${order.items.0.name}', vars)).to.equal('item kettle');
    expect(substitute('x ${order.items}', vars)).to.equal('x [{"name":"kettle"}]');
  });

  it('walks objects and arrays, leaves keys alone and does not change the input', () => {
    const input = { '${name}': ['${order.id}', { n: '${order.total}' }], plain: 3 };
    const out = substitute(input, vars);
    expect(out).to.deep.equal({ '${name}': ['ord_1', { n: 49 }], plain: 3 });
    expect(input['${name}'][0]).to.equal('${order.id}');
  });

  it('fails with bad_request naming the reference when a name or path is unknown', () => {
    expect(() => substitute('${missing.id}', vars)).to.throw(ServiceError, /"missing" is not defined/);
    expect(() => substitute('a ${order.nope}', vars)).to.throw(ServiceError, /\$\{order.nope\} does not resolve/);
    try {
      substitute('${missing}', vars);
    } catch (err) {
      expect((err as ServiceError).code).to.equal('bad_request');
    }
  });

  it('leaves unknown roots in partial mode, but still checks known ones', () => {
    expect(substitute('${later.id} for ${name}', vars, { partial: true })).to.equal('${later.id} for Dana');
    expect(substitute('${later}', vars, { partial: true })).to.equal('${later}');
    expect(() => substitute('${order.nope}', vars, { partial: true })).to.throw(ServiceError);
  });

  it('lists references and reads paths', () => {
    expect(collectRefs({ a: ['${x.y.0}', 'b ${z}'] }).map((r) => [r.root, r.path])).to.deep.equal([
      ['x', ['y', '0']],
      ['z', []],
    ]);
    expect(getPath({ a: [{ b: 1 }] }, 'a.0.b')).to.equal(1);
    expect(getPath({ a: [1, 2] }, 'a.length')).to.equal(2);
    expect(getPath({ a: 1 }, '')).to.deep.equal({ a: 1 });
    expect(getPath({ a: 1 }, 'a.b')).to.equal(undefined);
  });
});
