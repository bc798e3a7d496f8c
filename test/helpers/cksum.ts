// POSIX cksum(1) in TypeScript, for test/helpers/forge.ts: the scheduler entry does not
// use it (a CRC can be forged; generators/entry.ts checks a SHA-256). test/entry.test.ts
// checks it against the real cksum, so the forgery is shown on the real tool.
//
// The algorithm, as POSIX defines it: a CRC with the generator polynomial 0x04C11DB7,
// bits taken most significant first (no reflection), register starting at 0; the octets
// of the file, then the file's length in octets (least significant octet first, only as
// many octets as it needs, none for 0); the result complemented. `cksum <FILE` prints
// "<CRC> <LENGTH>" (no file name when it reads standard input).
// https://pubs.opengroup.org/onlinepubs/9699919799/utilities/cksum.html

export const crcTable = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();

function step(crc: number, octet: number): number {
  return ((crc << 8) ^ crcTable[((crc >>> 24) ^ octet) & 0xff]!) >>> 0;
}

export interface Cksum {
  /** The CRC, 0 … 2^32-1. */
  crc: number;
  /** The length in octets. */
  size: number;
}

/** POSIX cksum of `bytes` (a string counts as its UTF-8 bytes). */
export function cksum(bytes: Uint8Array | string): Cksum {
  const b = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  let crc = 0;
  for (let i = 0; i < b.length; i++) crc = step(crc, b[i]!);
  // The length as octets, least significant first; 2^53 fits in the double.
  for (let n = b.length; n > 0; n = Math.floor(n / 256)) crc = step(crc, n % 256);
  return { crc: ~crc >>> 0, size: b.length };
}

/** What `cksum <FILE` prints for these bytes, without its newline: "CRC SIZE". */
export function cksumLine(bytes: Uint8Array | string): string {
  const c = cksum(bytes);
  return `${c.crc} ${c.size}`;
}
