import { expect } from 'chai';
import type { Document } from 'openapi-backend';
import { createApiBackend, loadOpenApiDocument } from '../../gateway/openapi.js';

/**
 * The gateway builds its router and request validator with createApiBackend; a document
 * openapi-backend does not accept must stop the gateway there, with the problem in the message,
 * not be printed and passed over.
 */

async function refusal(document: Document): Promise<Error> {
  try {
    await createApiBackend(document);
  } catch (err) {
    return err as Error;
  }
  throw new Error('createApiBackend accepted a broken document');
}

describe('gateway OpenAPI document refusal', () => {
  it('builds over the service’s own document', async () => {
    const api = await createApiBackend();
    expect(api.getOperations()).to.not.be.empty;
  });

  it('refuses a document that is not valid OpenAPI, naming the problem', async () => {
    const broken = structuredClone(loadOpenApiDocument()) as unknown as Record<string, unknown>;
    delete broken.info;
    const err = await refusal(broken as unknown as Document);
    expect(err.message).to.match(/the gateway will not start/);
    expect(err.message).to.match(/not valid OpenAPI/);
    expect(err.message).to.include("must have required property 'info'");
  });

  it('refuses an operation without responses', async () => {
    const broken = structuredClone(loadOpenApiDocument());
    const [first] = Object.values(broken.paths ?? {});
    const op = Object.values(first!).find((v) => typeof v === 'object' && v && 'operationId' in v) as Record<
      string,
      unknown
    >;
    delete op.responses;
    const err = await refusal(broken);
    expect(err.message).to.match(/the gateway will not start/);
    expect(err.message).to.include('responses');
  });

  it('refuses a reference to a schema the document does not have', async () => {
    const broken = structuredClone(loadOpenApiDocument());
    broken.components!.schemas!['Dangling'] = { $ref: '#/components/schemas/NoSuchSchema' };
    const err = await refusal(broken);
    expect(err.message).to.match(/the gateway will not start/);
    expect(err.message).to.include('NoSuchSchema');
  });
});
