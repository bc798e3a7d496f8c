// A STAND-IN for the clients' HTTPS hosts (the OAuth token endpoint above all), offline:
// an HTTP proxy on this host that answers CONNECT itself and ends TLS with a certificate
// for the host asked, signed by a throw-away certificate authority made here with openssl.
// The client trusts that authority through NODE_EXTRA_CA_CERTS (Claude Code's Bun runtime and
// Node both read it) and reaches the stand-in through HTTPS_PROXY, which srt's own proxy
// takes as its parent proxy ("Falls back to HTTP_PROXY/HTTPS_PROXY/NO_PROXY env vars if
// unset", @anthropic-ai/sandbox-runtime's parentProxy): the jail's host allowlist still
// decides, and only then is the stand-in asked.
//   node tls-standin.mjs DIR LOG
//   DIR: where ca.pem (the authority to trust) and the certificates are made.
//   LOG: every request as one JSON line {host, method, url, body}.
//   Answers: POST /v1/oauth/token (Claude Code, platform.claude.com) and POST /oauth/token
//   (codex, auth.openai.com) with a new access AND refresh token (refresh tokens rotate:
//   "rt-rotated-N"); /v1/messages as the stand-in model (model-standin.mjs, script from
//   DIR/script.json when present); anything else 404 {}. Prints its port once it listens.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createSecureContext, createServer as createTls } from 'node:tls';
import { standInModel } from './model-standin.mjs';

const [dir, log] = process.argv.slice(2);
const ssl = (...a) => execFileSync('openssl', a, { stdio: ['ignore', 'ignore', 'pipe'] });
const ca = join(dir, 'ca.pem');
const caKey = join(dir, 'ca.key');
if (!existsSync(ca)) ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=hbgen test authority', '-keyout', caKey, '-out', ca);

/** A key and certificate for HOST, signed by the authority (made once per host). */
function leaf(host) {
  const key = join(dir, `${host}.key`);
  const crt = join(dir, `${host}.pem`);
  if (!existsSync(crt)) {
    const csr = join(dir, `${host}.csr`);
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${host}`, '-keyout', key, '-out', csr);
    writeFileSync(join(dir, `${host}.ext`), `subjectAltName=DNS:${host}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`);
    ssl('x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', '2', '-extfile', join(dir, `${host}.ext`), '-out', crt);
  }
  return createSecureContext({ key: readFileSync(key), cert: readFileSync(crt) });
}

const script = join(dir, 'script.json');
const model = standInModel(existsSync(script) ? JSON.parse(readFileSync(script, 'utf8')).commands : []);
let rotated = 0;
/** The HTTPS side: one request handler whatever the host. */
const inner = createServer((q, r) => {
  let body = '';
  q.on('data', (d) => (body += d));
  q.on('end', () => {
    appendFileSync(log, `${JSON.stringify({ host: q.headers.host, method: q.method, url: q.url, body })}\n`);
    if (q.method === 'POST' && (q.url === '/v1/oauth/token' || q.url === '/oauth/token')) {
      rotated += 1;
      const now = Math.floor(Date.now() / 1000);
      r.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ access_token: `sk-ant-oat01-rotated-${rotated}`, refresh_token: `rt-rotated-${rotated}`, expires_in: 28800, token_type: 'Bearer', scope: 'user:inference user:profile', iat: now }),
      );
      return;
    }
    if (q.url?.startsWith('/v1/messages')) {
      // Replayed into the model stand-in, body and all.
      const fake = Object.assign(new PassThrough(), { method: q.method, url: q.url, headers: q.headers });
      model.emit('request', fake, r);
      fake.end(body);
      return;
    }
    r.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
});
const proxy = createServer((q, r) => r.writeHead(405).end());
proxy.on('connect', (q, socket, head) => {
  const host = String(q.url).replace(/:\d+$/, '');
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  const tls = createTls({ SNICallback: (name, cb) => cb(null, leaf(name || host)) });
  tls.on('secureConnection', (s) => inner.emit('connection', s));
  tls.emit('connection', socket);
  if (head?.length) socket.unshift(head);
});
proxy.listen(0, process.env.HBTEST_LISTEN ?? '127.0.0.1', function () {
  process.stdout.write(`${this.address().port}\n`);
});
