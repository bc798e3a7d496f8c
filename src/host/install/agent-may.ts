// What the agent may do, as the install panel says it: how many wakes (cap), which tool
// permissions the preset passes, and, when the repo declares dependencies, whether the
// jail lets the package manager reach its registry (an install in a wake fails otherwise,
// and the agent cannot tell why).
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { harnessArgs } from '../../harness.ts';
import { presetOf } from '../../harness/registry.ts';
import { jailPolicy } from '../../jail.ts';
import type { Spec } from '../../spec.ts';

/** The cap row: how many wakes the agent gets. */
export function capRow(spec: Spec): [string, string] {
  return ['cap', spec.cap ? `${spec.cap} wakes, then every fire logs skip-cap (\`hbgen resume --reset-cap\` starts again)` : 'none: it wakes at every fire until stopped'];
}

/** The preset's flags that decide which tools run without asking, or null for a command. */
export function toolsRow(spec: Spec, jailed: boolean): [string, string] | null {
  const args = harnessArgs(spec.agent, jailed);
  const pick = (flag: string, n = 1) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args.slice(i, i + 1 + n).join(' ') : '';
  };
  const p = presetOf(spec.agent.harness);
  return p ? ['tools', p.tools((flag) => pick(flag))] : null;
}

/** Dependency files at the repo's top, and the hosts their package manager fetches from. */
const REGISTRIES: { files: string[]; tool: string; hosts: string[] }[] = [
  { files: ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock'], tool: 'npm install', hosts: ['registry.npmjs.org'] },
  { files: ['requirements.txt', 'pyproject.toml', 'Pipfile', 'poetry.lock', 'uv.lock'], tool: 'pip install', hosts: ['pypi.org', 'files.pythonhosted.org'] },
  { files: ['go.mod'], tool: 'go mod download', hosts: ['proxy.golang.org', 'sum.golang.org'] },
  { files: ['Cargo.toml', 'Cargo.lock'], tool: 'cargo fetch', hosts: ['index.crates.io', 'static.crates.io'] },
  { files: ['Gemfile', 'Gemfile.lock'], tool: 'bundle install', hosts: ['rubygems.org'] },
  { files: ['composer.json', 'composer.lock'], tool: 'composer install', hosts: ['repo.packagist.org'] },
];

/** One caveat per package manager whose registry the jail blocks, with the line that opens it. */
export function registryCaveats(spec: Spec): string[] {
  const p = jailPolicy(spec);
  if (!p) return [];
  const out: string[] = [];
  for (const r of REGISTRIES) {
    const file = r.files.find((f) => existsSync(posix.join(spec.repo, f)));
    if (!file) continue;
    const blocked = r.hosts.filter((h) => !p.hosts.includes(h));
    if (blocked.length === 0) continue;
    const open = [...(spec.sandbox && typeof spec.sandbox === 'object' ? (spec.sandbox.allowHosts ?? []) : []), ...blocked];
    out.push(`the repo has ${file}, but the jail blocks ${blocked.join(' and ')}: \`${r.tool}\` in a wake will fail; to open it, set "sandbox": {"allowHosts": ${JSON.stringify(open)}} (a host you add is one the agent can send to)`);
  }
  return out;
}
