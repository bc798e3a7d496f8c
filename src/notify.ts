// The rules of the spec's `ping`: a healthchecks-style URL to which the wrapper appends
// /start and /fail, passed to curl or wget as one argv word; written as the URL alone or as
// {url, body}, where body: false keeps the /fail request empty.

/** The spec's ping, one shape: its URL, and whether /fail carries the log's last lines. */
export function pingOf(ping: string | { url: string; body?: boolean } | undefined): { url: string; body: boolean } | undefined {
  if (ping === undefined) return undefined;
  return typeof ping === 'string' ? { url: ping, body: true } : { url: ping.url, body: ping.body !== false };
}

// Where a plain-http ping may go: only this machine, where no network can read or alter it.
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why `v` cannot be the spec's ping URL, or undefined when it can. */
export function pingProblem(v: string): string | undefined {
  // Printable ASCII only: the URL goes to curl or wget exactly as written, and a space or a
  // non-ASCII host would be sent in a form the spec's author did not see.
  if (!/^[\x21-\x7e]+$/.test(v)) return `must be a URL in printable ASCII with no spaces (write an international host name in its xn-- form), got ${JSON.stringify(v)}`;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return `must be a URL such as "https://hc-ping.com/<uuid>", got ${JSON.stringify(v)}`;
  }
  if (u.protocol === 'http:' && !LOCAL_HOSTS.has(u.hostname)) {
    return `must be an https URL (plain http only for 127.0.0.1 or localhost, where no network carries it), got ${JSON.stringify(v)}`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `must be an https URL, got ${JSON.stringify(v)}`;
  // A user name or password would sit in heartbeat.sh and in every ping's argv, where `ps`
  // shows it to any local user; healthchecks-style services carry their key in the path.
  if (u.username || u.password) return 'must not hold a user name or password (user:password@); use a URL that carries its key in the path, as healthchecks.io does';
  // /start and /fail are appended to the URL as written.
  if (u.search || u.hash || /[?#]/.test(v)) return `must not have a ?query or #fragment: the wrapper appends /start and /fail to it, got ${JSON.stringify(v)}`;
  if (v.endsWith('/')) return `must not end with "/": the wrapper appends /start and /fail to it; write ${JSON.stringify(v.replace(/\/+$/, ''))}`;
  return undefined;
}
