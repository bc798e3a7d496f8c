// Which host names reach this machine itself, or its link's neighbours without routing: the
// jail's proxy runs on the host, outside the jail's network namespace, so a name of the
// host's own loopback in sandbox.allowHosts lets the agent reach every service listening
// there (on any port: the proxy dials what it is asked), whatever NO_PROXY says. Pure.

/** Names the resolver gives the loopback by convention (RFC 6761 §6.3 for localhost; Debian's /etc/hosts for the ip6- ones). */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/** An IPv4 address (32 bits) in 0.0.0.0/8, 127.0.0.0/8 or 169.254.0.0/16. */
function v4Local(a: number): boolean {
  const top = a >>> 24;
  return top === 0 || top === 127 || a >>> 16 === 0xa9fe;
}

/** The eight 16-bit groups of an IPv6 address as the WHATWG URL parser writes it (compressed, no IPv4 tail), or null. */
function v6Groups(h: string): number[] | null {
  const [head = '', tail] = h.split('::');
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const a = part(head);
  const b = tail === undefined ? [] : part(tail);
  const zeros = 8 - a.length - b.length;
  if (zeros < 0 || (tail === undefined && zeros !== 0)) return null;
  const g = [...a, ...new Array<number>(zeros).fill(0), ...b];
  return g.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? g : null;
}

/**
 * Is `host` (a sandbox.allowHosts entry, possibly `*.` something) a loopback or link-local
 * name or address, in any spelling the resolver or an HTTP client accepts: localhost and
 * `*.localhost`, 127.0.0.0/8, 0.0.0.0/8, 169.254.0.0/16, ::1, ::, fe80::/10 and the
 * IPv4-mapped and IPv4-compatible forms of the IPv4 ones, and IPv4 written in decimal,
 * hex or octal parts (inet_aton(3): 2130706433, 0x7f.1, 0177.0.0.1). The URL parser
 * (https://url.spec.whatwg.org/#host-parsing) does the reading, as an HTTP client would.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase().replace(/\.$/, '');
  if (h.startsWith('*.')) h = h.slice(2);
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  let parsed: string;
  try {
    parsed = new URL(`http://${h.includes(':') ? `[${h}]` : h}/`).hostname;
  } catch {
    return false;
  }
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(parsed);
  if (v4) return v4Local(((Number(v4[1]) << 24) | (Number(v4[2]) << 16) | (Number(v4[3]) << 8) | Number(v4[4])) >>> 0);
  if (!parsed.startsWith('[')) return false;
  const g = v6Groups(parsed.slice(1, -1));
  if (!g) return false;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && (g[7] === 0 || g[7] === 1)) return true;
  if ((g[0]! & 0xffc0) === 0xfe80) return true;
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated but still parsed).
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return v4Local(((g[6]! << 16) | g[7]!) >>> 0);
  return false;
}
