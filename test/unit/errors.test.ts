import { expect } from 'chai';
import {
  ServiceError,
  ERROR_TABLE,
  MAX_WIRE_ERROR_BYTES,
  toGrpcError,
  fromGrpcError,
  invalid,
  AtCapacityError,
  NotHostedError,
  ShuttingDownError,
  SourceMissingError,
  ValidationFailedError,
} from '../../core/errors.js';
import { status } from '@grpc/grpc-js';

describe('errors', () => {
  it('the reasons callers branch on cross gRPC as their classes, with their fields and unchanged JSON', () => {
    const cases: [ServiceError, (e: ServiceError) => boolean][] = [
      [new NotHostedError('not here', true), (e) => e instanceof NotHostedError && e.starting],
      [new NotHostedError('not here'), (e) => e instanceof NotHostedError && !e.starting],
      [new AtCapacityError('full'), (e) => e instanceof AtCapacityError],
      [
        new SourceMissingError('lacks it', 'sha256:abc'),
        (e) => e instanceof SourceMissingError && e.digest === 'sha256:abc',
      ],
      [new ShuttingDownError('leaving', true), (e) => e instanceof ShuttingDownError && e.notStarted],
      [new ShuttingDownError('leaving'), (e) => e instanceof ShuttingDownError && !e.notStarted],
    ];
    for (const [sent, isIt] of cases) {
      const got = fromGrpcError(toGrpcError(sent));
      expect(isIt(got), sent.name).to.equal(true);
      expect(got.toJSON()).to.deep.equal(sent.toJSON());
      expect(got.detail).to.equal(sent.detail);
    }
    expect(new AtCapacityError('full').details).to.deep.equal({ at_capacity: true });
    expect(new SourceMissingError('lacks it', 'sha256:abc').details).to.deep.equal({ missing_source: 'sha256:abc' });
    expect(new ShuttingDownError('leaving', true).details).to.deep.equal({ shutting_down: true, not_started: true });
    expect(new NotHostedError('x', true).details).to.deep.equal({ not_hosted: true, starting: true });
    // a 422 comes back with its problems, typed, and the same JSON
    const problems = [{ field: 'a', message: 'b' }];
    const refused = fromGrpcError(toGrpcError(new ValidationFailedError('bad', problems)));
    expect(refused).to.be.instanceOf(ValidationFailedError);
    expect((refused as ValidationFailedError).problems).to.deep.equal(problems);
    expect(refused.toJSON()).to.deep.equal(new ValidationFailedError('bad', problems).toJSON());
    expect(invalid('a', 'b').detail).to.deep.equal(problems);
    // a plain error with other details stays a plain ServiceError
    const plain = fromGrpcError(toGrpcError(new ServiceError('not_found', 'gone', { details: { other: 1 } })));
    expect(plain.constructor).to.equal(ServiceError);
  });

  it('round-trips every code through gRPC unchanged', () => {
    for (const code of Object.keys(ERROR_TABLE) as Array<keyof typeof ERROR_TABLE>) {
      const e = new ServiceError(code, `msg ${code}`, {
        details: code === 'validation_failed' ? [{ field: 'a', message: 'b' }] : undefined,
      });
      const back = fromGrpcError(toGrpcError(e));
      expect(back.code).to.equal(code);
      expect(back.status).to.equal(ERROR_TABLE[code].http);
      expect(back.message).to.equal(`msg ${code}`);
    }
  });
  it('422 detail is the list of wrong fields', () => {
    expect(invalid('source.commit', 'must be hex').detail).to.deep.equal([
      { field: 'source.commit', message: 'must be hex' },
    ]);
  });
  it('hides internal messages and maps a bare UNAVAILABLE to 503', () => {
    expect(new ServiceError('internal', 'db password is x').detail).to.equal('internal error');
    expect(fromGrpcError({ code: status.UNAVAILABLE, details: 'No connection established' }).status).to.equal(503);
  });
  it('an error echoing a huge value crosses gRPC cut short, keeping its code and Retry-After', () => {
    const big = 'x'.repeat(200 * 1024);
    const cases = [
      new ServiceError('not_found', `application ${big} not found`),
      new ValidationFailedError(
        'bad',
        Array.from({ length: 500 }, (_, i) => ({ field: `f${i}${big}`, message: big })),
      ),
      new ServiceError('conflict', 'taken', { details: { echo: big } }),
      new ServiceError('rate_limited', big, { headers: { 'retry-after': '7' } }),
    ];
    for (const e of cases) {
      const wire = toGrpcError(e);
      expect(wire.details.length).to.be.at.most(MAX_WIRE_ERROR_BYTES);
      const back = fromGrpcError(wire);
      expect(back.code).to.equal(e.code);
      expect(back.message.startsWith(e.message.slice(0, 100))).to.equal(true);
    }
    expect(fromGrpcError(toGrpcError(cases[3])).headers).to.deep.equal({ 'retry-after': '7' });
    const problems = fromGrpcError(toGrpcError(cases[1])).detail as unknown[];
    expect(problems).to.be.an('array');
    expect(problems.length).to.be.greaterThan(0);
  });
});
