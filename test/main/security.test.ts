import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import forge from 'node-forge';
import {
  allowPermission,
  consoleUrl,
  decideCertificate,
  decideNavigation,
  decideRedirect,
  fingerprintsMatch,
  httpOrigin,
  isAppUrl,
  normaliseFingerprint,
  pemFingerprint,
} from '../../main/security.js';

const APP = 'https://127.0.0.1:8080';

/** A self-signed certificate made here, with its SHA-256 worked out independently from the DER bytes. */
function certificate(commonName: string): { pem: string; sha256Hex: string; colonHex: string; electron: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer([{ name: 'commonName', value: commonName }]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()), forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  const digest = createHash('sha256').update(der).digest();
  const sha256Hex = digest.toString('hex');
  return {
    pem,
    sha256Hex,
    colonHex: sha256Hex.toUpperCase().match(/../g)!.join(':'),
    electron: `sha256/${digest.toString('base64')}`,
  };
}

describe('origins and navigation', () => {
  it('gives the origin of http(s) URLs only', () => {
    expect(httpOrigin('https://127.0.0.1:8080/#/transactions?x=1')).toBe(APP);
    expect(httpOrigin('HTTP://LOCALHOST:80/a')).toBe('http://localhost');
    expect(httpOrigin('file:///etc/passwd')).toBeNull();
    expect(httpOrigin('javascript:alert(1)')).toBeNull();
    expect(httpOrigin('not a url')).toBeNull();
  });

  it('counts only the same scheme, host and port as the app', () => {
    expect(isAppUrl('https://127.0.0.1:8080/channels', APP)).toBe(true);
    expect(isAppUrl('http://127.0.0.1:8080/', APP)).toBe(false);
    expect(isAppUrl('https://127.0.0.1:8081/', APP)).toBe(false);
    expect(isAppUrl('https://localhost:8080/', APP)).toBe(false);
    expect(isAppUrl('https://127.0.0.1:8080.evil.example/', APP)).toBe(false);
    expect(isAppUrl('https://user@127.0.0.1:8080@evil.example/', APP)).toBe(false);
    expect(isAppUrl('https://127.0.0.1:8080/', null)).toBe(false);
  });

  it('keeps the console in the app, sends other web pages to the browser, refuses every other scheme', () => {
    expect(decideNavigation('https://127.0.0.1:8080/#/channels', APP)).toBe('allow');
    expect(decideNavigation('https://openhim.org/docs', APP)).toBe('open-external');
    expect(decideNavigation('http://example.org/', APP)).toBe('open-external');
    expect(decideNavigation('file:///C:/Windows/System32/calc.exe', APP)).toBe('deny');
    expect(decideNavigation('javascript:alert(1)', APP)).toBe('deny');
    expect(decideNavigation('data:text/html,<script>1</script>', APP)).toBe('deny');
    expect(decideNavigation('smb://server/share', APP)).toBe('deny');
    expect(decideNavigation('mailto:admin@clinic.example', APP)).toBe('deny');
    // Before the service is ready nothing belongs to the app.
    expect(decideNavigation('https://127.0.0.1:8080/', null)).toBe('open-external');
  });

  it('follows redirects only within the app', () => {
    expect(decideRedirect('https://127.0.0.1:8080/other', APP)).toBe('allow');
    expect(decideRedirect('https://evil.example/', APP)).toBe('deny');
    expect(decideRedirect('file:///etc/passwd', APP)).toBe('deny');
  });

  it('loads the console from the root of the API origin', () => {
    expect(consoleUrl('https://127.0.0.1:8080')).toBe('https://127.0.0.1:8080/');
    expect(consoleUrl('https://[::1]:8443/api')).toBe('https://[::1]:8443/');
    expect(() => consoleUrl('ftp://x')).toThrow('not an http(s) URL');
  });
});

describe('certificate fingerprints', () => {
  const cert = certificate('localhost');

  it('normalises Node, bare hex and Electron forms to the same digest and rejects anything else', () => {
    expect(normaliseFingerprint(cert.colonHex)).toBe(cert.sha256Hex);
    expect(normaliseFingerprint(cert.sha256Hex.toUpperCase())).toBe(cert.sha256Hex);
    expect(normaliseFingerprint(cert.electron)).toBe(cert.sha256Hex);
    expect(normaliseFingerprint(` ${cert.colonHex} `)).toBe(cert.sha256Hex);
    expect(normaliseFingerprint(cert.colonHex.slice(3))).toBeNull();
    expect(normaliseFingerprint('AB:CD')).toBeNull();
    expect(normaliseFingerprint(`${cert.sha256Hex}00`)).toBeNull();
    expect(normaliseFingerprint('sha1/abc=')).toBeNull();
    expect(normaliseFingerprint('')).toBeNull();
    expect(normaliseFingerprint(null)).toBeNull();
  });

  it('matches only equal digests', () => {
    const other = certificate('localhost');
    expect(fingerprintsMatch(cert.colonHex, cert.electron)).toBe(true);
    expect(fingerprintsMatch(cert.colonHex, other.colonHex)).toBe(false);
    expect(fingerprintsMatch(null, null)).toBe(false);
    expect(fingerprintsMatch('garbage', 'garbage')).toBe(false);
  });

  it('reads the fingerprint of a PEM certificate', () => {
    expect(pemFingerprint(cert.pem)).toBe(cert.sha256Hex);
    expect(pemFingerprint('-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----')).toBeNull();
  });
});

describe('certificate decisions', () => {
  const service = certificate('localhost');
  const pinned = { origin: APP, fingerprint256: service.colonHex };

  it('trusts the pinned certificate for the service host', () => {
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: service.pem })).toBe('trust');
    // Electron's own fingerprint is used when the PEM is unreadable.
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: '', fingerprint: service.electron })).toBe('trust');
  });

  it('refuses any other certificate, the pinned one on another host, and everything before the service is ready', () => {
    const stranger = certificate('localhost');
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: stranger.pem })).toBe('refuse');
    // A PEM that does not match wins over a matching Electron fingerprint: the bytes decide.
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: stranger.pem, fingerprint: service.electron })).toBe('refuse');
    expect(decideCertificate(pinned, { hostname: 'example.org', pem: service.pem })).toBe('refuse');
    expect(decideCertificate(null, { hostname: '127.0.0.1', pem: service.pem })).toBe('refuse');
    expect(decideCertificate({ origin: 'http://127.0.0.1:8080', fingerprint256: null }, { hostname: '127.0.0.1', pem: service.pem })).toBe('refuse');
  });

  it('compares IPv6 hosts with or without brackets', () => {
    const v6 = { origin: 'https://[::1]:8080', fingerprint256: service.colonHex };
    expect(decideCertificate(v6, { hostname: '::1', pem: service.pem })).toBe('trust');
    expect(decideCertificate(v6, { hostname: '[::1]', pem: service.pem })).toBe('trust');
  });
});

describe('permissions', () => {
  it('allows only clipboard writes, and only to the service’s pages', () => {
    expect(allowPermission('clipboard-sanitized-write', 'https://127.0.0.1:8080/#/x', APP)).toBe(true);
    expect(allowPermission('clipboard-sanitized-write', APP, APP)).toBe(true);
    expect(allowPermission('clipboard-sanitized-write', 'https://evil.example/', APP)).toBe(false);
    expect(allowPermission('clipboard-sanitized-write', 'data:text/html,x', APP)).toBe(false);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'usb', 'serial', 'unknown']) {
      expect(allowPermission(permission, APP, APP)).toBe(false);
    }
    expect(allowPermission('clipboard-sanitized-write', APP, null)).toBe(false);
  });
});
