import { expect } from 'chai';
import { ServiceError, type ErrorCode } from '../../core/errors.js';

/** Awaits `promise` and checks it failed with `ServiceError(code)`; returns that error. */
export async function expectError(promise: Promise<unknown>, code: ErrorCode): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal(code);
    return err as ServiceError;
  }
  throw new Error(`expected ServiceError('${code}'), but the call succeeded`);
}

/** The message `promise` was rejected with; fails the test when it was not rejected. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal, but it succeeded');
}
