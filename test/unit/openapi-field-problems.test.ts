import { expect } from 'chai';
import { toFieldProblems } from '../../gateway/validation-errors.js';

/** The 422 detail items made from openapi-backend's (ajv's) errors: one per wrong field, named by its path. */
describe('toFieldProblems', () => {
  it('names body fields by dotted path, parameters with their section', () => {
    expect(
      toFieldProblems([
        { keyword: 'pattern', instancePath: '/requestBody/source/commit', params: { pattern: '^x$' } },
        { keyword: 'maximum', instancePath: '/query/limit', params: { comparison: '<=', limit: 1000 } },
        { keyword: 'enum', instancePath: '/path/decision', params: { allowedValues: ['approve', 'deny'] } },
        { keyword: 'type', instancePath: '/requestBody/splits/0', params: { type: 'string' } },
      ]),
    ).to.deep.equal([
      { field: 'source.commit', message: 'must match the pattern ^x$' },
      { field: 'query.limit', message: 'must be at most 1000' },
      { field: 'path.decision', message: 'must be one of: approve, deny' },
      { field: 'splits.0', message: 'must be a string' },
    ]);
  });
  it('names the missing property of a required error and the body when the body is missing', () => {
    expect(
      toFieldProblems([
        { keyword: 'required', instancePath: '/requestBody/source', params: { missingProperty: 'commit' } },
        { keyword: 'required', instancePath: '', params: { missingProperty: 'requestBody' } },
        { keyword: 'required', instancePath: '/query', params: { missingProperty: 'run_a' } },
      ]),
    ).to.deep.equal([
      { field: 'source.commit', message: 'is required' },
      { field: 'body', message: 'is required' },
      { field: 'query.run_a', message: 'is required' },
    ]);
  });
  it('names the extra property of an additionalProperties error', () => {
    expect(
      toFieldProblems([
        { keyword: 'additionalProperties', instancePath: '/requestBody', params: { additionalProperty: 'colour' } },
      ]),
    ).to.deep.equal([{ field: 'colour', message: 'is not allowed' }]);
  });
  it('joins the branches of an anyOf into one item for the field', () => {
    expect(
      toFieldProblems([
        {
          keyword: 'minimum',
          instancePath: '/requestBody/limits_override/builds',
          params: { comparison: '>=', limit: 0 },
        },
        { keyword: 'type', instancePath: '/requestBody/limits_override/builds', params: { type: 'null' } },
        { keyword: 'anyOf', instancePath: '/requestBody/limits_override/builds', params: {} },
      ]),
    ).to.deep.equal([{ field: 'limits_override.builds', message: 'must be at least 0 or must be null' }]);
  });
  it('unescapes JSON pointer segments', () => {
    expect(
      toFieldProblems([
        { keyword: 'pattern', instancePath: '/requestBody/images/a~1b~0c', params: { pattern: 'p' } },
      ])[0]!.field,
    ).to.equal('images.a/b~c');
  });
  it('keeps the message of an unknown keyword and answers [] for no errors', () => {
    expect(
      toFieldProblems([{ keyword: 'custom', instancePath: '/requestBody/x', params: {}, message: 'is odd' }]),
    ).to.deep.equal([{ field: 'x', message: 'is odd' }]);
    expect(toFieldProblems(null)).to.deep.equal([]);
    expect(toFieldProblems(undefined)).to.deep.equal([]);
  });
});
