// Every name and path hbgen gives an artifact comes from here, so the launchd label, the
// unit names, the crontab markers and the state-dir files can never disagree.
import { posix } from 'node:path';
import { cronMarkers } from './formats.ts';
import { joinUnder } from './path-join.ts';
import type { Spec } from './spec.ts';

export interface Names {
  /** launchd Label and plist file stem, reverse-DNS as launchd.plist(5) asks. */
  label: string;
  unit: string;
  service: string;
  timer: string;
  cronBegin: string;
  cronEnd: string;
  /** Absolute state folder on the host. */
  stateDir: string;
  /** The state folder is inside the repo, where the agent can write: its state.json is evidence, never authority. */
  stateInRepo: boolean;
  wrapper: string;
  gate: string;
  claim: string;
  /** Shared-folder chunk claims: in the repo's agent folder, where every agent sharing the repo (each with its own state folder) sees them. */
  claimsDir: string;
  /** The wrapper's own records, and nothing else: no byte of the agent's output goes there. */
  log: string;
  /** The agent's output (stdout and stderr, or the stream's readable text), each wake's after a copy of its `start` line. */
  agentLog: string;
  /** The wrapper's wake counter. */
  wakes: string;
  lock: string;
  lockDir: string;
  hostDir: string;
}

/** The repo's folder for what agents may read and write (claims); never trusted by hbgen. */
export const AGENT_DIR = '.agent-platform';

/** Is `path` the folder `dir` or inside it (both absolute, normalized)? */
export function within(dir: string, path: string): boolean {
  const d = posix.normalize(dir).replace(/(.)\/$/, '$1');
  const p = posix.normalize(path).replace(/(.)\/$/, '$1');
  return p === d || p.startsWith(d === '/' ? '/' : `${d}/`);
}

export function stateDirOf(spec: Pick<Spec, 'repo' | 'stateDir'>): string {
  return spec.stateDir.startsWith('/') ? spec.stateDir : posix.join(spec.repo, spec.stateDir);
}

export function names(spec: Pick<Spec, 'name' | 'repo' | 'stateDir'>): Names {
  const state = stateDirOf(spec);
  const unit = `hbgen-${spec.name}`;
  const markers = cronMarkers(spec.name);
  return {
    label: `dev.hbgen.${spec.name}`,
    unit,
    service: `${unit}.service`,
    timer: `${unit}.timer`,
    cronBegin: markers.begin,
    cronEnd: markers.end,
    stateDir: state,
    stateInRepo: within(spec.repo, state),
    wrapper: joinUnder(state, 'heartbeat.sh'),
    gate: joinUnder(state, 'window.sh'),
    claim: joinUnder(state, 'claim.sh'),
    claimsDir: posix.join(spec.repo, AGENT_DIR, 'claims'),
    log: joinUnder(state, 'runtime.log'),
    agentLog: joinUnder(state, 'agent.log'),
    wakes: joinUnder(state, 'wakes'),
    lock: joinUnder(state, 'heartbeat.lock'),
    lockDir: joinUnder(state, 'heartbeat.lock.d'),
    hostDir: joinUnder(state, 'host'),
  };
}
