/**
 * Both AES-256-GCMs pass the contract: node:crypto, and the process's own OpenSSL called directly,
 * which the official builds of Node on Linux (20 and 24, the versions this runs on) export.
 */
import { nodeAesGcm } from '../../application/privacy/aes-gcm';
import { fastestAesGcm, opensslAesGcm } from '../../infrastructure/crypto/openssl-aes-gcm';
import { aesGcmContract } from './aes-gcm.contract';

aesGcmContract('node:crypto', () => nodeAesGcm);
aesGcmContract('OpenSSL of the process', () => opensslAesGcm()!);

describe('choosing the AES-256-GCM', () => {
  it('is the OpenSSL of the process on Linux, checked against node:crypto when loaded', () => {
    if (process.platform !== 'linux') return;
    expect(opensslAesGcm()?.name).toMatch(/^OpenSSL of the process \(OpenSSL 3\./);
    expect(fastestAesGcm()).toBe(opensslAesGcm());
  });
});
