import { expect } from 'chai';
import { codeOfSource, codeOfVersion, mayTake, originOf } from '../../scheduler/code-trust.js';

/** What the scheduler tells workers about the code it sends them (scheduler/code-trust.ts, docs/security.md). */
describe('code trust: the origin a build pinned, never the application as it is now', () => {
  const digest = `sha256:${'c'.repeat(64)}`;

  it('names how the bytes were obtained, and nothing else', () => {
    expect(originOf({ kind: 'upload', catalog: { name: 'shop-support' } } as never)).to.deep.equal({ kind: 'upload' });
    expect(originOf({ kind: 'local_path', path: 'shop' })).to.deep.equal({ kind: 'local_path', path: 'shop' });
    expect(originOf({ kind: 'git', url: 'file:///srv/shop', commit: 'x' } as never)).to.deep.equal({
      kind: 'git',
      url: 'file:///srv/shop',
    });
    expect(originOf({ kind: 'local_path' })).to.equal(null); // no path: nothing to judge by
    expect(originOf({ kind: 'ftp' })).to.equal(null);
    expect(originOf(null)).to.equal(null);
  });

  it('keeps the source a model added world files to, for the worker to judge', () => {
    expect(codeOfSource({ kind: 'local_path', path: 'shop', digest, authored_from: 'sha256:base' })).to.deep.equal({
      digest,
      origin: { kind: 'authored', base: { digest: 'sha256:base', origin: { kind: 'local_path', path: 'shop' } } },
    });
  });

  it("reads a world version's code from its provenance; without one the origin is unknown (tenant code)", () => {
    expect(codeOfVersion({ source_digest: digest, provenance: { source: { kind: 'upload', digest } } })).to.deep.equal({
      digest,
      origin: { kind: 'upload' },
    });
    expect(codeOfVersion({ source_digest: digest, provenance: null })).to.deep.equal({ digest, origin: null });
  });

  it('gives tenant code only to a worker that reported it runs it', () => {
    expect(mayTake({ runs_tenant_code: false }, 'tenant')).to.equal(false);
    expect(mayTake({ runs_tenant_code: true }, 'tenant')).to.equal(true);
    expect(mayTake({ runs_tenant_code: false }, 'operator')).to.equal(true);
  });
});
