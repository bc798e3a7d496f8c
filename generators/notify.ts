// Being told when the heartbeat stops working: what the runtime's step 4 (partial
// heartbeat/17-notify) reads from heartbeat.sh's values. Without notify and ping the values
// are absent and hb_tell is never called, so that such a wake costs nothing extra.
import { pingOf } from '../src/notify.ts';
import { NOTIFY_AFTER_DEFAULT } from '../src/spec.ts';
import type { RenderContext } from './types.ts';

/** Seconds the notify program gets before it is stopped (TERM, then KILL a second later). */
export const NOTIFY_SECONDS = 10;
/** curl's -m and wget's -T for one ping, and the bound the wrapper keeps around either. */
export const PING_SECONDS = 5;
export const PING_BOUND = 10;

export interface NotifyContext {
  /** Either of notify and ping is set: step 1d is rendered, and the calls to hb_tell. */
  tellOn: boolean;
  notifyOn: boolean;
  notifyArgv: string[];
  /** env(1) reads a first word with `=` as an assignment: such a path is started through nice. */
  notifyHasEq: boolean;
  notifyAfter: number;
  notifySeconds: number;
  pingOn: boolean;
  pingUrl: string;
  /** /fail POSTs the log's last lines (ping.body, default true). */
  pingBody: boolean;
  pingSeconds: number;
  pingBound: number;
}

export function notifyContext(ctx: RenderContext): NotifyContext {
  const argv = ctx.spec.notify ?? [];
  const p = pingOf(ctx.spec.ping);
  const ping = p?.url ?? '';
  return {
    tellOn: argv.length > 0 || ping !== '',
    notifyOn: argv.length > 0,
    notifyArgv: argv,
    notifyHasEq: (argv[0] ?? '').includes('='),
    // validateSpec fills it in wherever notify is set; without notify it is never read,
    // and written all the same so that every heartbeat.sh holds the same lines.
    notifyAfter: ctx.spec.notifyAfter ?? NOTIFY_AFTER_DEFAULT,
    notifySeconds: NOTIFY_SECONDS,
    pingOn: ping !== '',
    pingUrl: ping,
    pingBody: p?.body ?? false,
    pingSeconds: PING_SECONDS,
    pingBound: PING_BOUND,
  };
}
