import type { JailPolicy } from '../src/jail.ts';
import type { Names } from '../src/names.ts';
import type { Plan } from '../src/schedule.ts';
import type { Spec } from '../src/spec.ts';

/** One file of the rendered tree, its path relative to the output folder (the state folder on a host). */
export interface RenderedFile {
  path: string;
  content: string;
  mode: number;
}

/** Everything a generator may read. It is pure data: no host fact is in here. */
export interface RenderContext {
  spec: Spec;
  names: Names;
  plan: Plan;
  /** The jail's policy (jailPolicy), or null when the jail is off. */
  jail: JailPolicy | null;
  /** The generated-by sentence every file opens with. */
  header: string;
}

/**
 * What a scheduler's renderer reads: the render context and the SHA-256 (hex) of the
 * rendered heartbeat.sh, which the scheduler entry checks before it runs the wrapper
 * (generators/entry.ts). The scripts are rendered first, so the entry can carry it.
 */
export interface SchedulerContext extends RenderContext {
  wrapperSha256: string;
  /** The rendered scripts (heartbeat.sh, window.sh, claim.sh), for an entry that carries them (kubernetes' ConfigMap). */
  scripts: RenderedFile[];
}

/** A scheduler's renderer, ready to use once loaded: which files its entry adds to the tree (under host/). */
export interface Generator {
  /** Loads what files() needs before the first render (launchd's plist writer), kept out of start-up. */
  ready?(): Promise<void>;
  files(ctx: SchedulerContext): RenderedFile[];
  /** Problems only this backend has with the spec (e.g. cron's 998-byte line limit). */
  check?(ctx: SchedulerContext): string[];
}
