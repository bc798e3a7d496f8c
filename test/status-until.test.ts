// `until` as the person sees it: the install panel says when the job ends, and status,
// once that time has passed, says the job ended and how to remove its entry (STAND-IN
// systemctl, test/helpers/standins.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hb, makeHost } from './helpers/lifecycle.ts';

test('the panel shows until; status says the job ended once it passed, and stays healthy', async () => {
  const h = makeHost('systemd-user', { until: '2026-01-05T18:00' });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /\n {2}until {6}2026-01-05 18:00 Europe\/Berlin: the job ends then; later fires log skip-ended, run no agent and count no wake\n/);
  const st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /\n {2}until +2026-01-05 18:00 Europe\/Berlin: the job has ended, its fires log skip-ended and run no agent; `hbgen stop` removes its entry\n/);
  const before = await hb(h, 'status', { now: () => new Date('2026-01-05T16:59:00Z') });
  assert.match(before.out, /\n {2}until +2026-01-05 18:00 Europe\/Berlin: the job ends then\n/, before.out);
});

test.run();
