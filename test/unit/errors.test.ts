import { expect } from 'chai';
import { ServiceError, ERROR_TABLE, toGrpcError, fromGrpcError, invalid } from '../../core/errors.js';
import { status } from '@grpc/grpc-js';

describe('errors', () => {
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
});
