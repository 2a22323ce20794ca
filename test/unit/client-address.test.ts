import { expect } from 'chai';
import { clientAddressKey } from '../../core/client-address.js';

describe('clientAddressKey: what a per-address limit counts a client as', () => {
  it('an IPv4 address as itself', () => {
    expect(clientAddressKey('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientAddressKey('203.0.113.8')).to.not.equal(clientAddressKey('203.0.113.7'));
  });

  it('an IPv4-mapped IPv6 address as its IPv4 address, however it is written', () => {
    for (const a of ['::ffff:203.0.113.7', '::FFFF:203.0.113.7', '::ffff:cb00:7107', '0:0:0:0:0:ffff:cb00:7107'])
      expect(clientAddressKey(a), a).to.equal('203.0.113.7');
  });

  it('every IPv6 address of one /64 as that /64, however it is written', () => {
    const same = [
      '2001:db8:1:2::1',
      '2001:DB8:1:2:aaaa:bbbb:cccc:dddd',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:0:0:0:0',
    ];
    for (const a of same) expect(clientAddressKey(a), a).to.equal('2001:db8:1:2::/64');
  });

  it('neighbouring /64s apart, and an IPv6 address never as an IPv4 one', () => {
    expect(clientAddressKey('2001:db8:1:3::1')).to.equal('2001:db8:1:3::/64');
    expect(clientAddressKey('2001:db8:1:2::1')).to.not.equal(clientAddressKey('2001:db8:1:3::1'));
    expect(clientAddressKey('::1')).to.equal('::/64');
    expect(clientAddressKey('64:ff9b::cb00:7107')).to.equal('64:ff9b::/64');
  });

  it('drops a zone with the host part', () => {
    expect(clientAddressKey('fe80::1%eth0')).to.equal('fe80::/64');
    expect(clientAddressKey('fe80::2%eth1')).to.equal('fe80::/64');
  });

  it('keeps what is not an IP address as it is (an empty address stays empty)', () => {
    expect(clientAddressKey('')).to.equal('');
    expect(clientAddressKey('unknown')).to.equal('unknown');
    expect(clientAddressKey('2001:db8::zz')).to.equal('2001:db8::zz');
  });
});
