// install's check that the jail starts on this host: srt found, its tools
// there, and a real run inside the rendered jail.json — a probe that must print "ok" and
// whose write outside the allowed folders must fail. Run before anything is written: a
// jail that cannot start here is refused with the one line that fixes it.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jailPolicy } from '../../jail.ts';
import type { Spec } from '../../spec.ts';

const APT = 'apt-get install bubblewrap ripgrep socat';

function isExec(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `name` on a PATH string, as the wrapper's `command -v` finds it. */
export function onPath(name: string, path: string): string | null {
  for (const d of path.split(':')) {
    if (d.startsWith('/') && isExec(posix.join(d, name))) return posix.join(d, name);
  }
  return null;
}

/** hbgen's own copy of srt (its dependency), to suggest for sandbox.bin; null when absent. */
export function bundledSrt(): string | null {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(d, 'node_modules', '.bin', 'srt');
    if (existsSync(p)) return p;
    d = dirname(d);
  }
  return null;
}

export interface JailProbe {
  /** The srt the wakes will run (absolute), when found. */
  bin: string | null;
  /** Why the jail cannot start here, one line with its fix; null when it ran. */
  refusal: string | null;
}

/** Run the jail for real with the rendered settings (`settings`: jail.json's text). */
export function probeJail(spec: Spec, settings: string): JailProbe {
  const p = jailPolicy(spec);
  if (!p) return { bin: null, refusal: null };
  const PATH = spec.env.PATH!;
  const off = 'or set "sandbox": false to run the agent without the jail';
  const bin = p.bin || onPath('srt', PATH);
  if (!bin) {
    const own = bundledSrt();
    return { bin: null, refusal: `sandbox: srt (@anthropic-ai/sandbox-runtime) is not on env.PATH; install it (npm install -g @anthropic-ai/sandbox-runtime) or set sandbox.bin${own ? ` (hbgen's own copy: "${own}")` : ''}, ${off}` };
  }
  if (!isExec(bin)) return { bin, refusal: `sandbox.bin: ${bin} is missing or not executable; point it at the srt of @anthropic-ai/sandbox-runtime, ${off}` };
  if (p.platform === 'linux') {
    const missing = ['bwrap', 'rg', 'socat'].filter((t) => !onPath(t, PATH));
    if (missing.length) return { bin, refusal: `sandbox: ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not on env.PATH, and the jail needs ${missing.length > 1 ? 'them' : 'it'}: ${APT}, ${off}` };
  } else if (!isExec('/usr/bin/sandbox-exec')) {
    return { bin, refusal: `sandbox: /usr/bin/sandbox-exec is missing, and the jail needs it on macOS; ${off}` };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-jail-probe.'));
  try {
    const cfg = join(dir, 'jail.json');
    writeFileSync(cfg, settings);
    const escape = join(dir, 'escape');
    const r = spawnSync(bin, ['-s', cfg, '--', '/bin/sh', '-c', 'echo ok; if { true >"$1"; } 2>/dev/null; then echo escaped; fi', 'sh', escape], {
      cwd: spec.repo,
      env: { ...spec.env },
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const said = `${r.stderr ?? ''}${r.error ? r.error.message : ''}`.split('\n').map((l) => l.trim()).find((l) => l) ?? `exit ${r.status}`;
    if (r.status === 0 && /^ok$/m.test(r.stdout) && !/escaped/.test(r.stdout) && !existsSync(escape)) return { bin, refusal: null };
    if (/escaped/.test(r.stdout) || existsSync(escape)) return { bin, refusal: `sandbox: the jail ran but let its probe write outside the allowed folders (${escape}); do not rely on it here, ${off}` };
    if (/namespace|uid map|Operation not permitted|setting up/i.test(said)) {
      return { bin, refusal: `sandbox: the jail cannot start here: ${said}; allow unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), ${off}` };
    }
    return { bin, refusal: `sandbox: the jail cannot start here: ${said}; check that ${bin} runs (it needs node on env.PATH) and ${APT}, ${off}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
