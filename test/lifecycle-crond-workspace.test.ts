// needs root: it creates scratch users (useradd); it starts the real cron daemon
// The agent's own workspace through the real cron daemon: hbgen installs as a scratch user
// (real crontab(1)) a spec with "workspace": "clone"; the person has uncommitted work on
// their branch. cron's own fire at the entry's minute runs the agent in its clone, where it
// commits with `git add -A`; the wrapper fetches its branch back. Afterwards the agent's
// commit is on hbgen/docs in the person's repo, and the person's branch, HEAD, index and
// working tree are as they were.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, whyNot } from './helpers/cronuser.ts';
import { nextCronMinute, withCronDaemon } from './helpers/crond.ts';
import { makeHost } from './helpers/lifecycle.ts';

const why = whyNot() || (existsSync('/usr/sbin/cron') ? '' : 'no /usr/sbin/cron');
const real = realOrSkip(test, 'lifecycle-crond-workspace', why);
// As root in a folder the scratch user owns: git's ownership check is told this is meant.
const git = (dir: string, ...a: string[]) => spawnSync('git', ['-c', 'safe.directory=*', '-C', dir, ...a], { encoding: 'utf8' }).stdout;

real('real cron daemon: a fire with "workspace": "clone" commits on the agent\'s branch; the person\'s branch, index and tree are untouched', () =>
  withCronDaemon(async () => {
    const U = cronUser('hbgen-crond-ws');
    U.set(null);
    const { at, minute } = nextCronMinute(30_000);
    const h = makeHost('cron', { stateDir: undefined, workspace: 'clone', schedule: { scheduler: 'cron', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = agent\n\temail = agent@example.invalid\n');
    git(h.repo, 'init', '-q', '-b', 'main');
    git(h.repo, '-c', 'user.name=p', '-c', 'user.email=p@example.invalid', 'add', 'README');
    git(h.repo, '-c', 'user.name=p', '-c', 'user.email=p@example.invalid', 'commit', '-q', '-m', 'the repo');
    writeFileSync(h.bin, '#!/bin/sh\necho "one chunk" >>work.txt && git add -A && git commit -q -m "agent: one chunk" && echo agent ran\n', { mode: 0o755 });
    U.own(h);
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    // The person's half-done edit, after the install made the agent's clone.
    writeFileSync(join(h.repo, 'README'), 'half-done edit\n');
    const before = { head: git(h.repo, 'rev-parse', 'HEAD'), main: git(h.repo, 'rev-parse', 'main'), status: git(h.repo, 'status', '--porcelain'), index: readFileSync(join(h.repo, '.git/index')) };
    const n = names(h.spec);
    const ended = () => readFileSync(n.log, 'utf8').split('\n').find((l) => / hbgen docs ok\b/.test(l));
    const deadline = at + 50_000;
    while (!ended() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    assert.ok(ended(), `no ok wake by ${new Date(deadline).toISOString()}; log: ${readFileSync(n.log, 'utf8')}`);
    assert.is(ended()!.slice(0, 16), new Date(at).toISOString().slice(0, 16), "cron's fire at the planned minute");
    assert.match(readFileSync(n.log, 'utf8'), / hbgen docs note workspace: 1 commit on hbgen\/docs: [0-9a-f]{7}/);
    assert.is(git(h.repo, 'log', '-1', '--format=%s', 'hbgen/docs'), 'agent: one chunk\n');
    assert.is(git(h.repo, 'rev-parse', 'hbgen/docs~1'), before.main, 'on top of the person\'s HEAD at install');
    assert.equal({ head: git(h.repo, 'rev-parse', 'HEAD'), main: git(h.repo, 'rev-parse', 'main'), status: git(h.repo, 'status', '--porcelain'), index: readFileSync(join(h.repo, '.git/index')) }, before);
    assert.is(readFileSync(join(h.repo, 'README'), 'utf8'), 'half-done edit\n');
    assert.not.ok(existsSync(join(h.repo, 'work.txt')), "the agent's file is on its branch, not in the person's tree");

    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    assert.is(U.table(), null);
  }));

test.run();
