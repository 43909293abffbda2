/**
 * A `lookup` for `http.request` that resolves the host like `dns.lookup` but fails when ANY address it
 * resolves to is private or reserved. The socket connects to the addresses this function answers, so
 * the address checked is the address connected to: a name that resolves to a public address when the
 * webhook is saved and to 127.0.0.1 when it is delivered (DNS rebinding) is still refused.
 *
 * Refusing when any address is private (not only the first) is deliberate: with several addresses the
 * socket may try each of them in turn (happy eyeballs).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-addresses';

/** The destination was refused before any connection was made. */
export class RefusedDestination extends Error {
  readonly code = 'EREFUSEDDESTINATION';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`Refused: ${host} resolves to a private or reserved address (${address})`);
  }
}

export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '');
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) return callback(new RefusedDestination(hostname, refused.address), '');
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    // net asks for every address when it may try several (autoSelectFamily), otherwise for one.
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
};
