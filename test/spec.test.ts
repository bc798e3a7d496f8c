// The spec's rules, one by one, through validateSpec.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSchema } from '../src/schema.ts';
import { SCHEDULERS, SCHEDULER_IDS } from '../src/schedulers.ts';
import { credential, whyItBills } from '../src/credentials.ts';
import { EFFORTS, bypassArgs, harnessArgs } from '../src/harness.ts';
import { carrierIssue } from '../src/billing-rules.ts';
import { COMMAND_LINE, type Spec, validateSpec } from '../src/spec.ts';
import { ROOT } from './helpers/cli.ts';
import { renderNow } from './helpers/render.ts';
import { plistOracles, sdVerify, tmp } from './helpers/tools.ts';

const base = () => JSON.parse(readFileSync(join(ROOT, 'fixtures/specs/example.json'), 'utf8'));
const errorsOf = (mut: (s: any) => void) => {
  const s = base();
  mut(s);
  return validateSpec(s).errors ?? [];
};
const ok = (mut: (s: any) => void) => assert.equal(errorsOf(mut), []);
const fails = (mut: (s: any) => void, line: RegExp | string) => {
  const errs = errorsOf(mut);
  assert.ok(
    errs.some((e) => (typeof line === 'string' ? e === line : line.test(e))),
    `expected an error ${line}, got:\n${errs.join('\n')}`,
  );
};

test('the example is valid and defaults are applied', () => {
  const r = validateSpec(base());
  assert.ok(r.spec);
  assert.is(r.spec!.killAfter, '30s');
  assert.is(r.spec!.stateDir, '/home/ada/.local/state/hbgen/docs', 'the state folder is outside the repo by default');
  assert.is(r.spec!.lock, 'auto');
  assert.is(r.spec!.shared, false);
  assert.equal(r.spec!.agent.args, ['-p', '--model', 'sonnet', '--permission-mode', 'acceptEdits']);
});

test('the default state folder: XDG_STATE_HOME when the spec sets it absolute, the macOS place for launchd', () => {
  const withEnv = (env: Record<string, string>, scheduler = 'systemd-user') =>
    validateSpec({ ...base(), env: { HOME: '/home/ada', PATH: '/usr/bin:/bin', ...env }, schedule: { ...base().schedule, scheduler } }).spec!.stateDir;
  assert.is(withEnv({ XDG_STATE_HOME: '/srv/state/' }), '/srv/state/hbgen/docs');
  assert.is(withEnv({ XDG_STATE_HOME: 'relative/state' }), '/home/ada/.local/state/hbgen/docs', 'a relative XDG_STATE_HOME is ignored, as the XDG spec says');
  assert.is(withEnv({}, 'cron'), '/home/ada/.local/state/hbgen/docs');
  assert.is(withEnv({}, 'launchd'), '/home/ada/Library/Application Support/hbgen/docs');
  assert.is(validateSpec({ ...base(), stateDir: '.agent-platform' }).spec!.stateDir, '.agent-platform', 'an explicit stateDir is kept');
});

test('required fields have no defaults', () => {
  // hbgen init leaves the interval, the working hours and the timeout for the user: each
  // message says to choose.
  fails((s) => delete s.schedule.every, /^schedule\.every: required: choose the interval between wakes, one of 5m .* 24h$/);
  fails((s) => delete s.schedule.hours, /^schedule\.hours: required: choose the working hours/);
  fails((s) => delete s.schedule.hours.start, 'schedule.hours.start: required: choose when the working hours start, as HH:MM');
  fails((s) => delete s.schedule.hours.end, 'schedule.hours.end: required: choose when the working hours end, as HH:MM or 24:00');
  fails((s) => delete s.schedule.hours.timezone, /^schedule\.hours\.timezone: required/);
  fails((s) => delete s.timeout, /^timeout: required: choose the hard time limit of one wake/);
  fails((s) => delete s.env.HOME, "env.HOME: required: the agent's HOME");
  fails((s) => delete s.env.PATH, "env.PATH: required: the agent's PATH");
  fails((s) => delete s.version, 'version: required: 1, the spec format version');
});

test('agent.models: tier name -> model id', () => {
  ok((s) => (s.agent.models = { fast: 'haiku', general: 'sonnet', strong: 'opus', 'x-2': 'claude-opus-4-1 [1m]' }));
  fails((s) => (s.agent.models = { Fast: 'haiku' }), /^agent\.models\.Fast: tier name "Fast" must be lowercase letters, digits and dashes/);
  fails((s) => (s.agent.models = { '2x': 'haiku' }), /^agent\.models\.2x: tier name/);
  fails((s) => (s.agent.models = { fast: '' }), /^agent\.models\.fast: must not be empty/);
  fails((s) => (s.agent.models = { fast: 'a\nb' }), /^agent\.models\.fast: contains a control character/);
  fails((s) => (s.agent.models = { fast: 3 }), 'agent.models.fast: must be a string (a model id)');
  fails((s) => (s.agent.models = {}), 'agent.models: must name at least one tier; leave the field out for none');
  fails((s) => (s.agent.models = ['haiku']), /^agent\.models: must be an object of tier: "model id" strings/);
});

test('unknown fields anywhere', () => {
  fails((s) => (s.schedule.hours.tz = 'x'), 'schedule.hours.tz: unknown field; remove it or check its spelling');
  fails((s) => (s.agent.promt = 'x'), 'agent.promt: unknown field; remove it or check its spelling');
});

test('paths: absolute and normalized', () => {
  fails((s) => (s.repo = 'src/docs'), 'repo: must be an absolute path (starting with "/"), got "src/docs"');
  fails((s) => (s.repo = '/home/ada//docs'), 'repo: must be a normalized path; write "/home/ada/docs"');
  fails((s) => (s.repo = '/home/ada/docs/'), 'repo: must be a normalized path; write "/home/ada/docs"');
  fails((s) => (s.agent.bin = '/home/./ada/bin/claude'), /^agent\.bin: must be a normalized path/);
  fails((s) => (s.stateDir = 'a/../..'), /^stateDir: must be a normalized folder path/);
  fails((s) => (s.stateDir = '../x'), /^stateDir: a relative stateDir must stay inside the repo/);
  ok((s) => (s.stateDir = '/var/lib/hbgen/docs'));
  ok((s) => (s.stateDir = 'tools/agent'));
  fails((s) => (s.env.PATH = '/usr/bin:.'), /^env\.PATH: every entry must be an absolute, normalized folder \(found "\."\)/);
  fails((s) => (s.env.PATH = '/usr/bin:'), /^env\.PATH: every entry must be an absolute/);
  // A PATH folder inside the repo lets the agent replace a program the wrapper runs.
  fails(
    (s) => ((s.repo = '/home/u/src/docs'), (s.env.PATH = '/usr/bin:/home/u/src/docs/node_modules/.bin:/bin')),
    'env.PATH: "/home/u/src/docs/node_modules/.bin" is inside repo; the agent can write there, so a program the wrapper runs could be replaced: remove the entry and put the tool in a folder outside the repo',
  );
  fails((s) => ((s.repo = '/home/u/src/docs'), (s.env.PATH = '/home/u/src/docs:/bin')), /^env\.PATH: "\/home\/u\/src\/docs" is inside repo/);
  fails((s) => (s.env.PATH = '/bin::/usr/bin'), /^env\.PATH: every entry must be an absolute, normalized folder \(found ""\)/);
  ok((s) => ((s.repo = '/home/u/src/docs'), (s.env.PATH = '/home/u/src/docs-tools/bin:/bin')));
  fails((s) => (s.gate = ['on_ac_power']), 'gate[0]: must be an absolute path to the gate program, got "on_ac_power"');
});

test('notify, notifyAfter and ping: an argv with an absolute program, a whole number >= 1 with notify only, an https URL (http only on this machine)', () => {
  ok((s) => {
    s.notify = ['/usr/bin/notify-send', 'hbgen'];
    s.notifyAfter = 1;
    s.ping = 'https://hc-ping.com/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
  });
  for (const u of ['http://127.0.0.1:8000/hc/abc', 'http://localhost/ping', 'http://[::1]:9/x', 'https://ntfy.example.org/hb/abc']) ok((s) => (s.ping = u));
  fails((s) => (s.notify = []), 'notify: must hold at least the program; leave the field out for no notification');
  fails((s) => (s.notify = 'notify-send'), 'notify: must be an argv array such as ["/usr/bin/notify-send", "hbgen"]');
  fails((s) => (s.notify = ['notify-send']), 'notify[0]: must be an absolute path to the program to run, got "notify-send"');
  fails((s) => (s.notify = ['/usr/bin/notify-send', 'a\nb']), /^notify\[1\]: contains a control character/);
  fails((s) => ((s.notify = ['/bin/true']), (s.notifyAfter = 0)), 'notifyAfter: must be at least 1');
  fails((s) => ((s.notify = ['/bin/true']), (s.notifyAfter = 2.5)), 'notifyAfter: must be a whole number of wakes');
  fails((s) => (s.notifyAfter = 3), 'notifyAfter: applies only with notify; add notify or remove notifyAfter');
  fails((s) => (s.ping = 'http://hc-ping.com/abc'), 'ping: must be an https URL (plain http only for 127.0.0.1 or localhost, where no network carries it), got "http://hc-ping.com/abc"');
  fails((s) => (s.ping = 'ftp://example.org/x'), 'ping: must be an https URL, got "ftp://example.org/x"');
  fails((s) => (s.ping = 'hc-ping.com/abc'), 'ping: must be a URL such as "https://hc-ping.com/<uuid>", got "hc-ping.com/abc"');
  fails((s) => (s.ping = 'https://user:secret@example.org/p'), /^ping: must not hold a user name or password/);
  fails((s) => (s.ping = 'https://example.org/p?rid=1'), /^ping: must not have a \?query or #fragment/);
  fails((s) => (s.ping = 'https://example.org/p#x'), /^ping: must not have a \?query or #fragment/);
  fails((s) => (s.ping = 'https://example.org/p/'), 'ping: must not end with "/": the wrapper appends /start and /fail to it; write "https://example.org/p"');
  fails((s) => (s.ping = 'https://exämple.org/p'), /^ping: must be a URL in printable ASCII with no spaces/);
  fails((s) => (s.ping = 'https://example.org/a b'), /^ping: must be a URL in printable ASCII with no spaces/);
  fails((s) => (s.ping = 42), 'ping: must be a URL such as "https://hc-ping.com/<uuid>", or an object {url, body}');
  ok((s) => (s.ping = { url: 'https://hc-ping.com/abc', body: false }));
  ok((s) => (s.ping = { url: 'https://hc-ping.com/abc' }));
  fails((s) => (s.ping = { url: 'http://hc-ping.com/abc', body: false }), /^ping\.url: must be an https URL/);
  fails((s) => (s.ping = { url: 'https://hc-ping.com/abc', body: 'no' }), 'ping.body: must be true or false');
  fails((s) => (s.ping = { url: 'https://hc-ping.com/abc', bdy: false }), /^ping\.bdy: unknown field; did you mean "body"/);
  fails((s) => (s.ping = { body: false }), /^ping\.url: /);
});

test('time zones: exact names from the system zoneinfo only', () => {
  for (const z of ['Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC', 'America/Argentina/Buenos_Aires']) {
    ok((s) => (s.schedule.hours.timezone = z));
  }
  for (const z of ['Mars/Olympus', 'asia/kathmandu', 'Europe/Berlin ', 'posix/Europe/Berlin', '../../etc/passwd', 'zone.tab', 'Europe', '']) {
    fails((s) => (s.schedule.hours.timezone = z), /^schedule\.hours\.timezone: unknown IANA time zone/);
  }
  fails((s) => (s.schedule.hostTimezone = 'europe/berlin'), /^schedule\.hostTimezone: unknown IANA time zone "europe\/berlin"/);
});

test('durations and the interval', () => {
  for (const d of ['0m', '0s', '1.5m', '10', '10 m', 'm', '-1m', '1d']) fails((s) => (s.timeout = d), /^timeout: must be a whole number of s, m or h/);
  fails((s) => (s.schedule.every = '45m'), /^schedule\.every: must be one of 5m 10m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 24h/);
  fails((s) => ((s.timeout = '29m'), (s.killAfter = '1m')), /^timeout: timeout 29m \+ killAfter 1m must be shorter than every 30m/);
  fails((s) => (s.timeout = '30m'), /^timeout: timeout 30m \+ killAfter 30s must be shorter/);
  ok((s) => ((s.timeout = '29m'), (s.killAfter = '59s')));
  ok((s) => ((s.schedule.every = '5m'), (s.schedule.minute = 4), (s.timeout = '4m')));
});

test('minRun: below timeout; default 5m, or the timeout itself when that is 5m or shorter', () => {
  fails((s) => (s.minRun = '30m'), 'minRun: minRun 30m must be shorter than timeout 25m; a wake with less than minRun of its working window left is skipped, so shorten minRun or lengthen the timeout');
  fails((s) => (s.minRun = '25m'), /^minRun: minRun 25m must be shorter than timeout 25m;/);
  fails((s) => (s.minRun = '1500s'), /^minRun: minRun 1500s must be shorter than timeout 25m;/);
  for (const d of ['0m', '5', '1.5m']) fails((s) => (s.minRun = d), /^minRun: must be a whole number of s, m or h/);
  fails((s) => (s.minRun = 5), /^minRun: must be a duration string/);
  ok((s) => (s.minRun = '24m'));
  ok((s) => (s.minRun = '1s'));
  const spec = (mut: (s: any) => void) => {
    const s = base();
    mut(s);
    const r = validateSpec(s);
    assert.ok(r.spec, String(r.errors));
    return r.spec!;
  };
  assert.is(spec(() => {}).minRun, '5m');
  assert.is(spec((s) => (s.minRun = '10m')).minRun, '10m');
  // A short timeout stays valid without a minRun: the default is the timeout itself.
  for (const t of ['5m', '4m', '90s', '2s']) {
    assert.is(spec((s) => ((s.schedule.every = '10m'), (s.timeout = t))).minRun, t);
  }
  assert.is(spec((s) => ((s.schedule.every = '10m'), (s.timeout = '301s'))).minRun, '5m');
  // A normalized spec (as state.json records it) is valid again, with the default written out.
  for (const t of ['25m', '5m', '2s']) {
    const once = spec((s) => ((s.schedule.every = '30m'), (s.timeout = t)));
    assert.equal(validateSpec(once).spec, once, t);
  }
  ok((s) => ((s.schedule.every = '10m'), (s.timeout = '5m'), (s.minRun = '5m')));
  fails((s) => ((s.schedule.every = '10m'), (s.timeout = '301s'), (s.minRun = '301s')), /^minRun: minRun 301s must be shorter than timeout 301s;/);
  fails((s) => ((s.schedule.every = '10m'), (s.timeout = '2m'), (s.minRun = '3m')), /^minRun: minRun 3m must be shorter than timeout 2m;/);
  const schema = jsonSchema() as { properties: Record<string, { description?: string; type?: string }> };
  assert.match(schema.properties.minRun!.description ?? '', /^Shortest run worth starting, below timeout \(default "5m"/);
});

test('every property of the JSON Schema has a description, at every depth and in every branch', () => {
  type Node = { properties?: Record<string, Node>; anyOf?: Node[]; description?: string };
  const seen = new Set<string>();
  const missing: string[] = [];
  const walk = (node: Node, at: string) => {
    for (const [k, child] of Object.entries(node.properties ?? {})) {
      const path = at ? `${at}.${k}` : k;
      seen.add(path);
      if (!child.description) missing.push(path);
      walk(child, path);
      for (const alt of child.anyOf ?? []) walk(alt, path);
    }
  };
  walk(jsonSchema() as Node, '');
  assert.ok(seen.size > 60, `${seen.size} properties`);
  assert.equal(missing, [], 'properties without a description: give the field a description in src/spec.ts (.apply(describe, "…"))');
});

test('every default the JSON Schema states is what validation fills in for a spec without the field', () => {
  type Node = { properties?: Record<string, Node>; default?: unknown };
  const found: string[] = [];
  const walk = (node: Node, at: string[]) => {
    for (const [k, child] of Object.entries(node.properties ?? {})) {
      const path = [...at, k];
      if ('default' in child) {
        found.push(path.join('.'));
        const s = base();
        let parent: Record<string, unknown> = s;
        for (const p of path.slice(0, -1)) parent = parent[p] as Record<string, unknown>;
        delete parent[k];
        const r = validateSpec(s);
        assert.ok(r.spec, `${path.join('.')}: ${r.errors}`);
        let v: unknown = r.spec;
        for (const p of path) v = (v as Record<string, unknown>)[p];
        assert.equal(v, child.default, path.join('.'));
      }
      walk(child, path);
    }
  };
  walk(jsonSchema() as Node, []);
  for (const f of ['killAfter', 'lock', 'shared', 'catchUp', 'logMaxBytes', 'limitBackoff', 'agent.args']) assert.ok(found.includes(f), `${f} has no schema default`);
});

test('minute: 1–59, below the interval when it is under an hour', () => {
  fails((s) => (s.schedule.minute = 0), /^schedule\.minute: must be from 1 to 59/);
  fails((s) => (s.schedule.minute = 60), /^schedule\.minute: must be from 1 to 59/);
  fails((s) => (s.schedule.minute = 7.5), /^schedule\.minute: must be a whole number/);
  fails((s) => (s.schedule.minute = 30), 'schedule.minute: must be below the interval (30) when every is 30m, e.g. 7');
  ok((s) => ((s.schedule.every = '2h'), (s.schedule.minute = 59), (s.timeout = '1h')));
});

test('hours: HH:MM, 24:00 only as an end, start ≠ end, days listed once', () => {
  fails((s) => (s.schedule.hours.start = '8:00'), /^schedule\.hours\.start: must be a time as "HH:MM"/);
  fails((s) => (s.schedule.hours.start = '24:00'), /^schedule\.hours\.start: must be a time as "HH:MM" \(00:00–23:59\)/);
  ok((s) => (s.schedule.hours.end = '24:00'));
  fails((s) => (s.schedule.hours.end = '24:01'), /^schedule\.hours\.end/);
  fails((s) => (s.schedule.hours.end = '08:00'), 'schedule.hours.end: equals start; for round-the-clock use start "00:00" and end "24:00"');
  fails((s) => (s.schedule.hours.days = ['mon', 'mon']), 'schedule.hours.days: names a day twice; list each day once');
  fails((s) => (s.schedule.hours.days = []), /^schedule\.hours\.days: must name at least one day/);
  fails((s) => (s.schedule.hours.days = ['Mon']), /^schedule\.hours\.days\[0\]: must be one of mon tue wed thu fri sat sun/);
});

test('control characters: refused everywhere, a newline allowed only in the prompt', () => {
  ok((s) => (s.agent.prompt = 'line one\nline two\n'));
  fails((s) => (s.agent.prompt = 'a\r\nb'), 'agent.prompt: contains a control character other than newline; remove it');
  fails((s) => (s.agent.prompt = 'a\tb'), 'agent.prompt: contains a control character other than newline; remove it');
  fails((s) => (s.agent.args = ['a\nb']), 'agent.args[0]: contains a control character (newline, tab, …); remove it');
  fails((s) => (s.repo = '/a\u0000b'), /^repo: contains a control character/);
  fails((s) => (s.env.LANG = 'x\u007f'), /^env\.LANG: contains a control character/);
  fails((s) => (s.env.LANG = 'x\u0085'), /^env\.LANG: contains a control character/);
  fails((s) => (s.agent.model = 'x\u001b[31m'), /^agent\.model: contains a control character/);
  fails((s) => (s.agent.prompt = 'broken \ud800 surrogate'), 'agent.prompt: is not valid Unicode; remove the broken character');
});

// ------------------------------------------------------------------ Unicode non-characters

const NON_CHARACTERS = [0xfdd0, 0xfdef, 0xfffe, 0xffff, 0x1fffe, 0x5ffff, 0x10fffe, 0x10ffff];

test('non-characters: refused in every string of the spec, naming the field and the code point', () => {
  for (const cp of NON_CHARACTERS) {
    const c = String.fromCodePoint(cp);
    const hex = cp.toString(16).toUpperCase();
    const msg = (field: string) => `${field}: contains the Unicode non-character U+${hex}, which scheduler files cannot carry (systemd drops the line); remove it`;
    fails((s) => (s.repo = `/home/ada/d${c}cs`), msg('repo'));
    fails((s) => (s.agent.bin = `/opt/${c}/claude`), msg('agent.bin'));
    fails((s) => (s.agent.args = ['-p', `x${c}`]), msg('agent.args[1]'));
    fails((s) => (s.agent.prompt = `do ${c} this`), msg('agent.prompt'));
    fails((s) => (s.agent.model = `m${c}`), msg('agent.model'));
    fails((s) => (s.agent.models = { fast: `h${c}` }), msg('agent.models.fast'));
    fails((s) => (s.env.LANG = `x${c}`), msg('env.LANG'));
    fails((s) => (s.env.HOME = `/home/${c}`), msg('env.HOME'));
    fails((s) => (s.stateDir = `st${c}`), msg('stateDir'));
    fails((s) => (s.gate = ['/usr/bin/test', c]), msg('gate[1]'));
    fails((s) => (s.$schema = `../schema${c}.json`), msg('$schema'));
  }
  // Their neighbours are ordinary characters, and U+FEFF inside a string is one too.
  for (const cp of [0xfdcf, 0xfdf0, 0xfffd, 0xfeff, 0x1fffd, 0x10fffd]) {
    ok((s) => ((s.repo = `/home/ada/d${String.fromCodePoint(cp)}cs`), (s.agent.prompt = String.fromCodePoint(cp))));
  }
});

test('non-characters: systemd drops the ExecStart line and XML readers refuse U+FFFE in a plist', () => {
  // The real consumers, with what the renderers make of such a path when validation is
  // bypassed. U+FFFD in the same place is the control: both accept it.
  const dir = tmp('hbgen-nonchar');
  // The state folder inside the repo, so that the repo's path is in ExecStart.
  const valid = validateSpec({ ...base(), repo: '/home/ada/d\ufffdcs', stateDir: '.agent-platform' }).spec!;
  const units = (spec: Spec, sub: string) => {
    mkdirSync(join(dir, sub));
    chmodSync(join(dir, sub), 0o755);
    return renderNow(spec).files.filter((f) => f.path.startsWith('host/')).map((f) => {
      const file = join(dir, sub, f.path.slice(5));
      writeFileSync(file, f.content, { mode: 0o644 });
      return file;
    });
  };
  assert.is(sdVerify(units(valid, 'control')), '', 'control: systemd accepts U+FFFD');
  for (const cp of [0xfdd0, 0xfffe, 0x10ffff]) {
    const out = sdVerify(units({ ...valid, repo: `/home/ada/d${String.fromCodePoint(cp)}cs` }, `u${cp.toString(16)}`));
    assert.match(out, /String is not UTF-8 clean, ignoring assignment: ExecStart=/, `U+${cp.toString(16)}`);
  }
  const plist = renderNow(valid, { scheduler: 'launchd' }).files.find((f) => f.path.endsWith('.plist'))!;
  const files = ['\ufffd', '\ufffe', '\uffff'].map((c, i) => {
    const file = join(dir, `p${i}.plist`);
    writeFileSync(file, plist.content.replaceAll('\ufffd', c));
    return file;
  });
  const [control, fffe, ffff] = plistOracles(files);
  assert.not.ok(control!.error, control!.error);
  assert.match(fffe!.error ?? '', /plistlib\(xml\): ExpatError: not well-formed \(invalid token\)/);
  assert.match(ffff!.error ?? '', /plistlib\(xml\): ExpatError: not well-formed \(invalid token\)/);
});

// ------------------------------------------------------------------ the agent's command line

/** Run the agent's exec the way the wrapper does (timeout … env -i ENV… bin ARGS… PROMPT, from a shell whose environment is ENV), with `sh -c 'exit 0'` as the agent. */
function execAsWrapper(spec: Spec): { status: number | null; error?: string } {
  const env = Object.entries(spec.env).map(([k, v]) => `${k}=${v}`);
  const context = `\n\n---\nhbgen wake 1 of ${spec.name}\n`.padEnd(COMMAND_LINE.contextBytes, 'c');
  const argv = ['-k', spec.killAfter.slice(0, -1), '60', '/usr/bin/env', '-i', ...env, `HBGEN_NAME=${spec.name}`, `HBGEN_REPO=${spec.repo}`, 'HBGEN_WAKE=1', 'HBGEN_DEADLINE=2000000000', '/bin/sh', '-c', 'exit 0', ...spec.agent.args, spec.agent.prompt + context];
  const r = spawnSync('timeout', argv, { env: { ...spec.env, LC_ALL: 'C.UTF-8', HBGEN_REEXEC: '1' } });
  return { status: r.status, error: (r.error as NodeJS.ErrnoException | undefined)?.code };
}

test('the prompt: at most 64 KiB with its context block; the longest accepted prompt execs', () => {
  const max = COMMAND_LINE.argBytes - COMMAND_LINE.contextBytes;
  const at = validateSpec({ ...base(), agent: { ...base().agent, prompt: 'é'.repeat(max / 2) } });
  assert.ok(at.spec, at.errors?.join('\n'));
  assert.equal(execAsWrapper(at.spec!), { status: 0, error: undefined });
  fails((s) => (s.agent.prompt = `${'é'.repeat(max / 2)}x`), `agent.prompt: is ${max + 1} bytes; the prompt and its context block become one argument, which hbgen keeps within 64 KiB (Linux refuses one over 128 KiB), so shorten it to at most ${max} bytes, e.g. by moving standing instructions into HEART.md`);
  // What the rule prevents: the prompt of the report fails every exec (here before the
  // agent, at the kernel), and it is refused with that one line.
  const big = { ...at.spec!, agent: { ...at.spec!.agent, prompt: 'p'.repeat(140000) } };
  assert.equal(execAsWrapper(big), { status: null, error: 'E2BIG' });
  assert.equal(errorsOf((s) => (s.agent.prompt = 'p'.repeat(140000))), [`agent.prompt: is 140000 bytes; the prompt and its context block become one argument, which hbgen keeps within 64 KiB (Linux refuses one over 128 KiB), so shorten it to at most ${max} bytes, e.g. by moving standing instructions into HEART.md`]);
});

test('the whole command line: at most 96 KiB, env counted twice; the largest accepted one execs', () => {
  const max = COMMAND_LINE.argBytes - COMMAND_LINE.contextBytes;
  const withBig = (n: number) => validateSpec({ ...base(), agent: { ...base().agent, prompt: 'p'.repeat(max) }, env: { ...base().env, BIG: 'b'.repeat(n) } });
  // The largest BIG that passes, found by bisection: one byte more is refused.
  let lo = 0;
  let hi = COMMAND_LINE.totalBytes;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (withBig(mid).spec) lo = mid;
    else hi = mid;
  }
  assert.ok(lo > 10000, `room for the environment: ${lo}`);
  assert.equal(execAsWrapper(withBig(lo).spec!), { status: 0, error: undefined });
  const over = withBig(lo + 1).errors ?? [];
  assert.is(over.length, 1, over.join('\n'));
  // The prompt (with its context block) is the largest part here, so the line names it.
  assert.match(over[0]!, /^agent\.prompt: the agent's command line would take 9830[56] bytes, over the 96 KiB \(98304 bytes\) hbgen allows for arguments and environment together \(macOS refuses more than 256 KiB\); this field is the largest part \(65537 bytes\), so shorten it$/);
  fails((s) => (s.env.BIG = 'b'.repeat(50000)), /^env: the agent's command line would take \d+ bytes, over the 96 KiB \(98304 bytes\) hbgen allows for arguments and environment together \(macOS refuses more than 256 KiB\); this field is the largest part \(1\d{5} bytes, counted twice since the wrapper's shell carries it too\), so shorten it$/);
  fails((s) => (s.agent.args = ['a'.repeat(50000), 'b'.repeat(50000)]), /^agent\.args: the agent's command line would take \d+ bytes, over the 96 KiB/);
  fails((s) => (s.agent.models = { fast: 'm'.repeat(99000) }), /^agent\.models: the agent's command line would take/);
});

test('hostile but printable strings are accepted', () => {
  const hostile = `it's "quoted" $HOME \`id\` $(id) 100% \\ \\\\ -n -- ; && | ünï ✓ 🎉 #x *~ <&>`;
  ok((s) => {
    s.repo = `/srv/${hostile.replace(/\//g, '')}`;
    s.agent.args = [hostile, '-', '--', ''];
    s.agent.prompt = `${hostile}\n${hostile}`;
    s.env.HOSTILE = hostile;
    s.gate = ['/usr/bin/test', hostile];
  });
});

test('metered credentials are refused as env keys, with what each is and why it bills; settings without a credential pass', () => {
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY', 'CLAUDE_CODE_USE_ANTHROPIC_AWS', 'CLAUDE_CODE_USE_MANTLE', 'CLAUDE_CODE_USE_GATEWAY', 'OPENAI_API_KEY', 'CODEX_API_KEY', 'AZURE_OPENAI_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK', 'GOOGLE_APPLICATION_CREDENTIALS', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY']) {
    for (const harness of ['claude-code', 'codex', 'command']) {
      fails((s) => {
        s.agent.harness = harness;
        s.env[k] = 'x';
      }, `env.${k}: ${whyItBills(credential(k)!)}; remove it from env`);
    }
  }
  fails((s) => (s.env.ANTHROPIC_API_KEY = 'x'), 'env.ANTHROPIC_API_KEY: ANTHROPIC_API_KEY is an Anthropic API key: Claude Code uses it before your subscription login and bills every token to the API account; remove it from env');
  // Today's code refused every AWS_* and AZURE_OPENAI_*: these carry no credential.
  ok((s) => {
    for (const k of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_CA_BUNDLE', 'AWS_PROFILE', 'AZURE_OPENAI_ENDPOINT', 'ANTHROPIC_VERTEX_PROJECT_ID', 'CLAUDE_CODE_OAUTH_TOKEN', 'LANG', 'CLAUDE_CONFIG_DIR', 'API_KEYS_DIR', 'AWSOME']) s.env[k] = '/x';
  });
  // Judged by what they carry (src/billing-rules.ts): a credential header, another host.
  for (const [k, v] of [
    ['ANTHROPIC_CUSTOM_HEADERS', 'x-api-key: sk-ant-api03-x'],
    ['ANTHROPIC_CUSTOM_HEADERS', 'X-Team: a\nAuthorization: Bearer x'],
    ['OTEL_EXPORTER_OTLP_HEADERS', 'api-key=x'],
    ['ANTHROPIC_BASE_URL', 'http://127.0.0.1:9'],
    ['ANTHROPIC_BEDROCK_BASE_URL', 'https://bedrock.example'],
    ['OPENAI_BASE_URL', 'https://proxy.example/v1'],
  ]) {
    for (const harness of ['claude-code', 'codex', 'command']) {
      fails((s) => {
        s.agent.harness = harness;
        s.env[k!] = v!;
      }, `env.${k}: ${carrierIssue(k!, v!)}; remove it from env${k!.endsWith('_BASE_URL') ? ' (or, for an endpoint of your own, list its host in sandbox.allowHosts)' : ''}`);
    }
  }
  // A base URL to a host the person allows in the jail is their own endpoint; a header is never.
  ok((s) => {
    s.env.ANTHROPIC_BASE_URL = 'https://gateway.example.com/anthropic';
    s.sandbox = { allowHosts: ['gateway.example.com'] };
  });
  fails((s) => {
    s.env.ANTHROPIC_BASE_URL = 'https://gateway.example.com/anthropic';
    s.sandbox = { allowHosts: ['other.example.com'] };
  }, `env.ANTHROPIC_BASE_URL: ${carrierIssue('ANTHROPIC_BASE_URL', 'https://gateway.example.com/anthropic')}; remove it from env (or, for an endpoint of your own, list its host in sandbox.allowHosts)`);
  assert.match(carrierIssue('ANTHROPIC_CUSTOM_HEADERS', 'x-api-key: x')!, /^ANTHROPIC_CUSTOM_HEADERS adds a credential header/);
  // codex's base URLs re-point the pinned provider, in any form of -c.
  for (const args of [['-c', 'openai_base_url="http://127.0.0.1:9/v1"'], ['-cchatgpt_base_url=http://x'], ['--config=profiles.a.openai_base_url="http://x"']]) {
    assert.is(bypassArgs(args).length, 1, args.join(' '));
  }
  ok((s) => {
    s.env.ANTHROPIC_CUSTOM_HEADERS = 'X-Team: a';
    s.env.ANTHROPIC_BASE_URL = 'https://api.anthropic.com/';
    s.env.OPENAI_BASE_URL = 'https://api.openai.com/v1';
  });
  fails((s) => (s.env.HBGEN_WAKE = '3'), 'env.HBGEN_WAKE: HBGEN_WAKE is set by the wrapper itself; remove it');
  for (const k of ['IFS', 'BASH_ENV', 'ENV', 'CDPATH', 'PPID', 'SHELLOPTS', '_']) {
    fails((s) => (s.env[k] = 'x'), `env.${k}: ${k} is read by the wrapper's own shell and would change how it runs; remove it`);
  }
  fails((s) => (s.env['A-B'] = '3'), 'env.A-B: "A-B" is not a valid environment variable name; use letters, digits and _');
});

test('agent.effort: each preset takes its client\'s levels, and pins them on the command line', () => {
  for (const harness of ['claude-code', 'codex'] as const) {
    for (const effort of EFFORTS[harness]) {
      const s = base();
      s.agent.harness = harness;
      s.agent.effort = effort;
      const v = validateSpec(s);
      assert.equal(v.errors, undefined, `${harness} ${effort}`);
      const argv = harnessArgs(v.spec!.agent);
      if (harness === 'claude-code') assert.equal(argv.slice(argv.indexOf('--effort'), argv.indexOf('--effort') + 2), ['--effort', effort]);
      // The last -c of the preset (its --json --ephemeral follow).
      else assert.equal(argv.slice(argv.lastIndexOf('-c'), argv.lastIndexOf('-c') + 2), ['-c', `model_reasoning_effort="${effort}"`]);
    }
  }
  fails((s) => {
    s.agent.harness = 'claude-code';
    s.agent.effort = 'ultra';
  }, 'agent.effort: "ultra" is not an effort level of claude-code; use one of low medium high xhigh max');
  for (const bad of ['minimal', 'High', 'none', '', 'extreme']) {
    fails((s) => {
      s.agent.harness = 'codex';
      s.agent.effort = bad;
    }, `agent.effort: must be one of low medium high xhigh max ultra, got ${JSON.stringify(bad)}${bad === 'High' ? '; did you mean "high"?' : ''}`);
  }
  fails((s) => (s.agent.effort = 3), 'agent.effort: must be one of low medium high xhigh max ultra, got 3');
  fails((s) => (s.agent.effort = 'high'), 'agent.effort: applies to the claude-code and codex presets only; for harness "command" put your client\'s own effort flag in agent.args');
  // No effort: no flag.
  const v = validateSpec({ ...base(), agent: { ...base().agent, harness: 'codex' } });
  assert.not.ok(harnessArgs(v.spec!.agent).some((a) => a.includes('effort')));
});

const CLAUDE_FIX = "remove it: the preset's acceptEdits mode already edits the repo unattended, and permissions.allow rules in the repo's .claude/settings.json allow the commands the agent needs";
const CODEX_FIX = "remove it: the preset's workspace-write sandbox already lets codex write the repo, and --add-dir DIR gives it another folder";

test('agent.args: every form of a blanket bypass is refused for every harness, naming the argument', () => {
  const cases: [string[], number, string][] = [
    [['--dangerously-skip-permissions'], 0, `--dangerously-skip-permissions lets Claude Code run every tool with no permission check; ${CLAUDE_FIX}`],
    [['--verbose', '--allow-dangerously-skip-permissions'], 1, `--allow-dangerously-skip-permissions lets the session switch off every permission check; ${CLAUDE_FIX}`],
    [['--verbose', '--max-turns', '5', '--permission-mode', 'bypassPermissions'], 3, `--permission-mode bypassPermissions runs Claude Code with no permission check; ${CLAUDE_FIX}`],
    [['--permission-mode=bypassPermissions'], 0, `--permission-mode bypassPermissions runs Claude Code with no permission check; ${CLAUDE_FIX}`],
    [['--dangerously-bypass-approvals-and-sandbox'], 0, `--dangerously-bypass-approvals-and-sandbox runs codex with no sandbox and no approvals; ${CODEX_FIX}`],
    [['--yolo'], 0, `--yolo runs codex with no sandbox and no approvals; ${CODEX_FIX}`],
    [['--sandbox', 'danger-full-access'], 0, `--sandbox danger-full-access runs codex with no sandbox; ${CODEX_FIX}`],
    [['--sandbox=danger-full-access'], 0, `--sandbox danger-full-access runs codex with no sandbox; ${CODEX_FIX}`],
    [['-s', 'danger-full-access'], 0, `--sandbox danger-full-access runs codex with no sandbox; ${CODEX_FIX}`],
    [['-sdanger-full-access'], 0, `--sandbox danger-full-access runs codex with no sandbox; ${CODEX_FIX}`],
  ];
  const sandbox = `-c sandbox_mode=danger-full-access runs codex with no sandbox; ${CODEX_FIX}`;
  for (const v of ['danger-full-access', '"danger-full-access"', "'danger-full-access'", ' "danger-full-access" ']) {
    cases.push([['-c', `sandbox_mode=${v}`], 0, sandbox]);
    cases.push([['--verbose', `-csandbox_mode=${v}`], 1, sandbox]);
    cases.push([['--config', ` sandbox_mode =${v}`], 0, sandbox]);
    cases.push([[`--config=sandbox_mode=${v}`], 0, sandbox]);
  }
  cases.push([['--settings', '{"permissions": {"defaultMode": "bypassPermissions"}}'], 0, 'the --settings JSON: permissions.defaultMode is "bypassPermissions", which runs every tool with no permission check; remove the key (hbgen\'s claude runs in acceptEdits mode) and allow the commands the agent needs with permissions.allow rules']);
  cases.push([['--settings={"apiKeyHelper": "/bin/echo", "env": {"ANTHROPIC_API_KEY": "x", "AWS_REGION": "y"}}'], 0, `the --settings JSON: apiKeyHelper is set, so Claude Code would send that script's output as an API key and bill every token to that account instead of your subscription; remove the key; and env.ANTHROPIC_API_KEY is set, and Claude Code applies this env to itself: ${whyItBills(credential('ANTHROPIC_API_KEY')!)}; remove the key`]);
  cases.push([['-c', 'profiles.ci.sandbox_mode="danger-full-access"'], 0, `-c profiles.ci.sandbox_mode=danger-full-access runs codex with no sandbox; ${CODEX_FIX}`]);
  for (const harness of ['claude-code', 'codex', 'command']) {
    for (const [args, i, message] of cases) {
      fails((s) => {
        s.agent.harness = harness;
        s.agent.args = args;
      }, `agent.args[${i}]: ${message}`);
    }
  }
  // Settings that keep the checks on pass, as do the words as plain values.
  for (const args of [
    ['--permission-mode', 'acceptEdits'],
    ['--permission-mode=dontAsk'],
    ['--sandbox', 'workspace-write'],
    ['-s', 'read-only'],
    ['-c', 'sandbox_mode="workspace-write"'],
    ['-c', 'model_reasoning_effort="high"'],
    ['-c', 'sandbox_workspace_write.network_access=true'],
    ['--allowedTools', 'Bash(git *)'],
    ['--append-system-prompt', 'never use --dangerously-skip-permissions'],
    ['--permission-mode'],
    ['--settings', '{"permissions": {"defaultMode": "acceptEdits"}, "env": {"AWS_REGION": "eu-west-1"}}'],
    ['--settings', '.claude/ci.json'],
  ]) {
    ok((s) => (s.agent.args = args));
  }
});

test('name: lowercase words joined by single dashes, at most 40', () => {
  for (const n of ['docs', 'a', 'docs-nightly-2', 'a'.repeat(40)]) ok((s) => (s.name = n));
  for (const n of ['Docs', 'a--b', '-a', 'a-', 'a_b', 'a b', '', 'ü']) fails((s) => (s.name = n), /^name: must be lowercase letters/);
  fails((s) => (s.name = 'a'.repeat(41)), 'name: must be at most 40 characters');
});

test('every problem is reported in one run', () => {
  const errs = errorsOf((s) => {
    s.name = 'X';
    s.timeout = '45m';
    s.schedule.hours.timezone = 'Nowhere/City';
    s.env.OPENAI_API_KEY = 'k';
  });
  assert.is(errs.length, 4, errs.join('\n'));
});

test('every scheduler the spec accepts has one descriptor, and its renderer and backend load', async () => {
  const schema = jsonSchema() as { properties: { schedule: { properties: { scheduler: { enum: string[] } } } } };
  assert.equal(schema.properties.schedule.properties.scheduler.enum, [...SCHEDULER_IDS]);
  assert.equal(Object.keys(SCHEDULERS).sort(), [...SCHEDULER_IDS].sort());
  for (const id of SCHEDULER_IDS) {
    const d = SCHEDULERS[id];
    assert.is(d.id, id);
    assert.ok(d.tools.length > 0, `${id}: names its tools`);
    assert.type((await d.generator()).files, 'function', `${id}: renderer`);
    const b = await d.backend();
    for (const m of ['preflight', 'apply', 'listed', 'planStop', 'audit'] as const) assert.type(b[m], 'function', `${id}: backend.${m}`);
  }
  fails((s) => (s.schedule.scheduler = 'anacron'), /^schedule\.scheduler: must be one of launchd systemd-user cron kubernetes, got "anacron"$/);
});

test.run();
