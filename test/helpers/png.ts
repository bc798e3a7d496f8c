// A small PNG reader for the tests that look at a rendering (rsvg-convert's output): 8-bit
// RGB or RGBA, not interlaced, the five row filters of the PNG specification, IDAT
// inflated with node's zlib. Enough to ask "what colour is the pixel at (x, y)".
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** [r, g, b, a] of the pixel at column x, row y. */
  at(x: number, y: number): [number, number, number, number];
}

export function readPng(b: Buffer): Image {
  if (!b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let off = 8; off < b.length; ) {
    const len = b.readUInt32BE(off);
    const type = b.toString('latin1', off + 4, off + 8);
    const data = b.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8]!;
      const color = data[9]!;
      if (depth !== 8 || (color !== 2 && color !== 6) || data[12] !== 0) throw new Error(`PNG: depth ${depth}, colour type ${color}, interlace ${data[12]} not read here`);
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = px.subarray(y * stride, (y + 1) * stride);
    const prev = y ? px.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? cur[i - channels]! : 0;
      const up = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      let v = src[i]!;
      if (f === 1) v += a;
      else if (f === 2) v += up;
      else if (f === 3) v += (a + up) >> 1;
      else if (f === 4) {
        const p = a + up - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
      } else if (f !== 0) throw new Error(`PNG: row filter ${f}`);
      cur[i] = v & 0xff;
    }
  }
  return {
    width,
    height,
    at(x, y) {
      const i = y * stride + x * channels;
      return [px[i]!, px[i + 1]!, px[i + 2]!, channels === 4 ? px[i + 3]! : 255];
    },
  };
}
