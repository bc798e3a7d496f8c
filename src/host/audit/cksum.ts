// POSIX cksum(1), as the wrapper's entry record of the host files uses it ("CRC SIZE": see
// install/entry-sum.ts), so that it is computed here without running cksum. HEART.md's change
// check is SHA-256 (a CRC can be matched by a rewrite), not this.
// The algorithm is the one the cksum page of POSIX.1-2017 defines
// (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/cksum.html): CRC-32 with
// polynomial 0x04C11DB7, most significant bit first, over the data and then the length's
// bytes (least significant first, no trailing zeros), the result complemented.
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** `cksum <FILE` as the wrapper stores it: "CRC SIZE". */
export function posixCksum(data: Buffer): string {
  let crc = 0;
  const step = (b: number) => {
    crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  };
  for (const b of data) step(b);
  for (let n = data.length; n > 0; n = Math.floor(n / 256)) step(n & 0xff);
  return `${(~crc >>> 0).toString()} ${data.length}`;
}
