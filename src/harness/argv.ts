// Reading a client's options out of agent.args, as the clients' own parsers do: the one
// module a preset descriptor imports (it imports nothing itself).

/** The value of `--name value`, `--name=value` or (short) `-xvalue`/`-x=value` starting at args[i]. */
export function optionValue(args: readonly string[], i: number, long: string, short?: string): string | undefined {
  const a = args[i]!;
  if (a === long || (short && a === short)) return args[i + 1];
  if (a.startsWith(`${long}=`)) return a.slice(long.length + 1);
  if (short && a.startsWith(short) && a.length > short.length) return a.slice(a.startsWith(`${short}=`) ? short.length + 1 : short.length);
  return undefined;
}

/** `key=value` of a codex `-c` override, the key and value without spaces or TOML quotes. */
export function configOverride(kv: string): [string, string] | undefined {
  const eq = kv.indexOf('=');
  if (eq < 0) return undefined;
  const unquote = (v: string) => v.trim().replace(/^('''|"""|'|")(.*)\1$/s, '$2').trim();
  return [unquote(kv.slice(0, eq)), unquote(kv.slice(eq + 1))];
}

/** The -c/--config override an argument starts (with its value attached or in the next argument). */
export function overrideAt(args: readonly string[], i: number): string | undefined {
  const a = args[i]!;
  if (a === '-c' || a === '--config') return args[i + 1];
  if (a.startsWith('--config=')) return a.slice('--config='.length);
  if (a.startsWith('-c')) return a.slice(a.startsWith('-c=') ? 3 : 2);
  return undefined;
}

/** The values of `--name VALUE` and `--name=VALUE` in args. */
export function optionValues(args: readonly string[], long: string): (string | undefined)[] {
  return args.flatMap((a, i) => (a === long ? [args[i + 1]] : a.startsWith(`${long}=`) ? [a.slice(long.length + 1)] : []));
}

/** `a/b` without a doubled slash. */
export const join2 = (a: string, b: string): string => `${a.replace(/\/+$/, '')}/${b}`;
