import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ServiceError } from '../../core/errors.js';
import { JSON_MAX_DEPTH, JSON_MAX_VALUES, jsonBoundsProblem, verifyJsonBounds } from '../../gateway/json-bounds.js';

/** The scan of gateway/json-bounds.ts on texts an attacker would write, and its edges. */

const small = { maxDepth: 3, maxValues: 10 };

describe('json bounds: depth', () => {
  it('accepts exactly the limit and names the path one level past it', () => {
    expect(jsonBoundsProblem('{"a":{"b":[1]}}', small)).to.equal(null);
    expect(jsonBoundsProblem('{"a":{"b":[[1]]}}', small)).to.deep.equal({
      field: 'a.b.0',
      message:
        'nests deeper than 3 levels (objects and lists inside one another, the body being the first); at most 3 are accepted',
    });
  });

  it('names list indexes and decodes escaped keys; brackets inside strings do not count', () => {
    expect(jsonBoundsProblem('{"x":"[[[[{{{{","a\\"b":[0,{"c":[[2]]}]}', { maxDepth: 4, maxValues: 100 })).to.include({
      field: 'a"b.1.c.0',
    });
    expect(jsonBoundsProblem('{"x":"\\"[[[[[[","y":"\\\\"}', small)).to.equal(null);
  });

  it('a body that is a list is named `body` followed by its indexes', () => {
    expect(jsonBoundsProblem('[[[[', small)!.field).to.equal('body.0.0.0');
    expect(jsonBoundsProblem('[1,[2,[3,[4]]]]', small)!.field).to.equal('body.1.1.1');
  });

  it('a megabyte of brackets is refused at the first level past the limit, without recursion', () => {
    const text = '['.repeat(1 << 20);
    const problem = jsonBoundsProblem(text);
    expect(problem!.field.split('.')).to.have.length(JSON_MAX_DEPTH + 1);
    expect(problem!.message).to.include(`${JSON_MAX_DEPTH} levels`);
    // balanced, 100,000 deep: the same answer; the scan never builds the value
    expect(jsonBoundsProblem('['.repeat(100_000) + ']'.repeat(100_000))).to.deep.equal(problem);
  });

  it('long keys are cut in the path', () => {
    const key = 'k'.repeat(500);
    const field = jsonBoundsProblem(`{"${key}":[[[1]]]}`, small)!.field;
    expect(field).to.equal(`${'k'.repeat(32)}....0.0`);
  });
});

describe('json bounds: values', () => {
  it('counts objects, lists, strings, numbers and literals (not keys) and names the top-level field', () => {
    // 1 body + a + 8 numbers = 10
    expect(jsonBoundsProblem('{"a":[1,2,3,4,5,6,7,-8e2]}', small)).to.equal(null);
    expect(jsonBoundsProblem('{"a":[1,2,3,4,5,6,7,8,true]}', small)).to.deep.equal({
      field: 'a',
      message:
        'passes the limit of 10 values in one JSON body (each object, list, string, number, true, false and null counts one)',
    });
    // keys are not values: 1 body + 9 members
    expect(jsonBoundsProblem('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":null}', small)).to.equal(null);
    expect(
      jsonBoundsProblem('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":"x","j":{}}', small)!.field,
    ).to.equal('j');
  });

  it('the default limit: JSON_MAX_VALUES values pass, one more does not', () => {
    const list = (n: number) => `{"args":[${new Array(n).fill('0').join(',')}]}`;
    expect(jsonBoundsProblem(list(JSON_MAX_VALUES - 2))).to.equal(null);
    expect(jsonBoundsProblem(list(JSON_MAX_VALUES - 1))!.field).to.equal('args');
  });
});

describe('json bounds: malformed text', () => {
  it('never throws on text JSON.parse will refuse', () => {
    for (const text of ['', '"', '"\\', '}}}]]]', '{"a"', '{,,,:::}', '[1 2 3', 'nul', '\u0000\uffff', '{"a":"b\\']) {
      expect(() => jsonBoundsProblem(text, small), text).not.to.throw();
    }
  });
});

describe('json bounds: the body-parser hook', () => {
  it('throws a 422 ServiceError listing the problem; passes a body within bounds', () => {
    const deep = Buffer.from('['.repeat(JSON_MAX_DEPTH + 1));
    let thrown: unknown;
    try {
      verifyJsonBounds({} as never, {}, deep, 'utf-8');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(ServiceError);
    expect((thrown as ServiceError).status).to.equal(422);
    expect((thrown as ServiceError).detail).to.have.length(1);
    expect(() => verifyJsonBounds({} as never, {}, Buffer.from('{"a":[1]}'), 'utf-8')).not.to.throw();
  });

  it('reads UTF-16 bodies as their charset says', () => {
    const deep = Buffer.from('['.repeat(JSON_MAX_DEPTH + 1), 'utf16le');
    expect(() => verifyJsonBounds({} as never, {}, deep, 'utf-16le')).to.throw(ServiceError, /not valid/);
  });
});

describe('json bounds: gateway/openapi.yaml states them', () => {
  it('info x-json-limits holds the gateway constants', () => {
    const doc = parse(readFileSync(path.resolve('gateway/openapi.yaml'), 'utf8')) as {
      info: { 'x-json-limits'?: unknown; description: string };
    };
    expect(doc.info['x-json-limits']).to.deep.equal({ max_depth: JSON_MAX_DEPTH, max_values: JSON_MAX_VALUES });
    expect(doc.info.description).to.include(`${JSON_MAX_DEPTH} levels`);
    expect(doc.info.description).to.include(`${JSON_MAX_VALUES.toLocaleString('en-US')} values`);
  });
});
