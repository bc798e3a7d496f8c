// A forgery, to show why the scheduler entry checks a SHA-256 and not POSIX cksum: CRC-32
// is linear, so anyone who can read the expected sum (the agent can run `crontab -l`) can
// write a wrapper of the same length and the same cksum that does something else. Here:
// `touch FILE`, then a comment padded to the original length whose last 4 bytes are
// solved for so that the CRC register ends where the original's does.
import { cksum, crcTable } from './cksum.ts';

const step = (crc: number, octet: number) => ((crc << 8) ^ crcTable[((crc >>> 24) ^ octet) & 0xff]!) >>> 0;

/** The CRC register after `bytes`, from 0, before the length and the complement. */
function register(bytes: Uint8Array, from = 0): number {
  let crc = from;
  for (const b of bytes) crc = step(crc, b);
  return crc;
}

/** Feeding 4 bytes X into register s gives g(s ^ X), g linear and invertible: solve g(v) = target for v. */
function solve(target: number): number {
  // Columns g(e_i), then Gaussian elimination over GF(2).
  const rows: { m: number; v: number }[] = [];
  for (let i = 0; i < 32; i++) {
    const e = (1 << i) >>> 0;
    rows.push({ m: register(new Uint8Array([e >>> 24, (e >>> 16) & 0xff, (e >>> 8) & 0xff, e & 0xff])), v: e });
  }
  let want = target;
  let got = 0;
  for (let bit = 31; bit >= 0; bit--) {
    const mask = (1 << bit) >>> 0;
    const p = rows.findIndex((r) => (r.m & mask) !== 0);
    if (p < 0) throw new Error('singular');
    const [pivot] = rows.splice(p, 1);
    for (const r of rows) if (r.m & mask) (r.m = (r.m ^ pivot!.m) >>> 0), (r.v = (r.v ^ pivot!.v) >>> 0);
    if (want & mask) (want = (want ^ pivot!.m) >>> 0), (got = (got ^ pivot!.v) >>> 0);
  }
  return got;
}

/** A script of `original`'s length and POSIX cksum that runs `command` first. */
export function forgeSameCksum(original: Buffer, command: string): Buffer {
  const want = register(original);
  for (let pad = 0; pad < 64; pad++) {
    const head = Buffer.from(`${command}\nexit 0\n#${'x'.repeat(pad)}`);
    const body = Buffer.alloc(original.length - 4, 0x20);
    head.copy(body);
    const v = solve(want);
    const s = register(body);
    const x = (s ^ v) >>> 0;
    const tail = Buffer.from([x >>> 24, (x >>> 16) & 0xff, (x >>> 8) & 0xff, x & 0xff]);
    if (tail.includes(0x0a) || tail.includes(0)) continue;
    const forged = Buffer.concat([body, tail]);
    const a = cksum(original);
    const b = cksum(forged);
    if (a.crc !== b.crc || a.size !== b.size) throw new Error('forgery failed');
    return forged;
  }
  throw new Error('no forgery without a newline or NUL in the patch');
}
