import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueCertificateFiles, revokeCertificates } from '../../cli/admin-certs.js';
import { readRevocationList } from '../../core/control-plane-crl.js';
import { serialKey } from '../../core/control-plane.js';
import { ServiceError } from '../../core/errors.js';

/** The ServiceError code and message a promise was rejected with. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof ServiceError ? `${err.code}: ${err.message}` : `not a ServiceError: ${String(err)}`;
  }
  throw new Error('expected a refusal, but it succeeded');
}

/** `crucible admin certs revoke` (cli/admin-certs.ts): what it writes and what it refuses. */
describe('admin certs revoke: the CA folder’s revocation list', () => {
  let dir: string;
  let ca: string;
  const entries = async () => [
    ...(await readRevocationList(readFileSync(path.join(dir, 'crl.pem'), 'utf8'), ca)).values(),
  ];

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-revoke-unit-'));
    await issueCertificateFiles(dir, [{ role: 'worker', name: 'worker-1' }]);
    ca = readFileSync(path.join(dir, 'ca.pem'), 'utf8');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a new CA folder starts with an empty list of its CA', async () => {
    expect(await entries()).to.deep.equal([]);
    expect(readFileSync(path.join(dir, 'crl.pem'), 'utf8')).to.match(/^-----BEGIN X509 CRL-----\n/);
  });

  it('adds serials in any spelling once, keeps what the list held, and says what was there already', async () => {
    const first = await revokeCertificates(dir, { serials: ['00:8F:01', 'abc'], certs: [], reason: 'superseded' });
    expect(first.added).to.deep.equal(['8f01', 'abc']);
    const second = await revokeCertificates(dir, {
      serials: ['0ABC'],
      certs: [path.join(dir, 'worker-1.pem')],
      reason: 'keyCompromise',
    });
    expect(second.already).to.deep.equal(['abc']);
    expect(second.added).to.have.length(1);
    const listed = await entries();
    expect(listed.map((e) => e.serial).sort()).to.deep.equal(['8f01', 'abc', second.added[0]!].sort());
    expect(listed.find((e) => e.serial === 'abc')!.reason).to.equal('superseded');
    expect(listed.find((e) => e.serial === second.added[0])!.reason).to.equal('keyCompromise');
    expect(serialKey('00:0A:BC')).to.equal('abc');
  });

  it('refuses what it cannot revoke, with the reason', async () => {
    const none = { serials: [], certs: [], reason: 'unspecified' };
    expect(await refusal(revokeCertificates(dir, { ...none, serials: ['xyz'] }))).to.match(
      /^bad_request: --serial "xyz": a certificate serial number in hex/,
    );
    expect(await refusal(revokeCertificates(dir, { ...none, serials: ['01'], reason: 'because' }))).to.match(
      /^bad_request: --reason must be one of unspecified, keyCompromise/,
    );
    const other = path.join(dir, 'other');
    await issueCertificateFiles(other, [{ role: 'gateway', name: 'gateway' }]);
    expect(await refusal(revokeCertificates(dir, { ...none, certs: [path.join(other, 'gateway.pem')] }))).to.match(
      /^bad_request: --cert .*gateway.pem was not issued by this folder's CA/,
    );
    expect(await refusal(revokeCertificates(dir, { ...none, certs: [path.join(dir, 'worker-1-key.pem')] }))).to.match(
      /^bad_request: --cert .* is not a readable PEM certificate/,
    );
    expect(await refusal(revokeCertificates(path.join(dir, 'nowhere'), { ...none, serials: ['01'] }))).to.match(
      /^not_found: .* holds no CA/,
    );
    writeFileSync(path.join(dir, 'crl.pem'), readFileSync(path.join(other, 'crl.pem')));
    expect(await refusal(revokeCertificates(dir, { ...none, serials: ['01'] }))).to.match(
      /^conflict: .*crl.pem is not a revocation list of this CA \(the control-plane CA did not sign/,
    );
  });
});
