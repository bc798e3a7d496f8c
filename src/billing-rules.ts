// The billing rules, written once: two awk programs. The wrapper runs them before every wake
// (templates/partials/heartbeat/55-billing.hbs and 56-billing-files.hbs, rendered in from
// here) and install runs the very same text on the same host (src/billing.ts verdict and
// fileHit), so the same client output or settings file gets the same verdict in both
// places. awk because the wrapper is POSIX sh; the programs stay within POSIX awk (mawk,
// gawk, busybox and macOS awk all run them). See src/billing.ts for what the clients print.
import { PRESETS } from './harness/registry.ts';

// ---- What a variable or setting carries ------------------------------------------------
// Beside the credential list (src/credentials.ts, judged by name), some variables and
// settings are judged by what they carry (seen with Claude Code 2.1.332 and codex 0.171.0
// against a local capture server: `"ANTHROPIC_CUSTOM_HEADERS": "x-api-key: sk-ant-…"` in a
// settings file's env makes Claude Code send that key on every request beside the plan's
// token, while `claude auth status` still says claude.ai / max). The rules, written once
// here, are applied by spec validation and install (carrierIssue and helperIssue, the
// settings files' env through src/harness.ts claudeSettingsIssues) and by FILES_AWK below
// (the wrapper's scan before every wake, which install runs too):
// - a header variable is refused when a header in it names a credential (CREDENTIAL_HEADER);
// - a base-URL variable is refused unless it is the client's own API host (or empty);
// - a helper setting (a command whose output the client sends as a credential) is refused
//   whatever it names: the helpers Claude Code's bundle calls "the credential helpers"
//   (https://code.claude.com/docs/en/settings).

/** Variables whose value is request headers ("Name: Value" lines, or OTel's "name=value,…"). */
export const HEADER_VARS: readonly string[] = [
  'ANTHROPIC_CUSTOM_HEADERS',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_PROFILES_HEADERS',
];

/** A header that carries a credential, as a POSIX ERE on the lowercased value (awk and TypeScript read it alike). */
export const CREDENTIAL_HEADER = 'authorization|api[-_]?key';

/**
 * Variables that say where the client sends its requests, with the plan's token: the
 * client's own API URL (lowercased, no trailing slash), or '' where no value is the plan's
 * (a provider's endpoint, a socket, the token endpoints).
 */
export const URL_VARS: Readonly<Record<string, string>> = {
  ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
  ANTHROPIC_BEDROCK_BASE_URL: '',
  ANTHROPIC_BEDROCK_MANTLE_BASE_URL: '',
  ANTHROPIC_VERTEX_BASE_URL: '',
  ANTHROPIC_FOUNDRY_BASE_URL: '',
  ANTHROPIC_AWS_BASE_URL: '',
  ANTHROPIC_GOOGLE_CLOUD_BASE_URL: '',
  ANTHROPIC_UNIX_SOCKET: '',
  OPENAI_BASE_URL: 'https://api.openai.com/v1',
  CODEX_APP_SERVER_CHATGPT_BASE_URL: '',
  CODEX_REFRESH_TOKEN_URL: '',
  CODEX_REVOKE_TOKEN_URL: '',
};

/** Claude Code settings whose value is a command it runs for a credential or the headers it sends. */
export const HELPER_KEYS: readonly string[] = ['apiKeyHelper', 'awsAuthRefresh', 'awsCredentialExport', 'gcpAuthRefresh', 'otelHeadersHelper', 'proxyAuthHelper'];

const credentialHeader = new RegExp(CREDENTIAL_HEADER);

/**
 * Why NAME=VALUE sends a metered credential beside the plan's token, or the token
 * elsewhere: one clause naming the variable, or undefined. FILES_AWK's rules.
 */
export function carrierIssue(name: string, value: string): string | undefined {
  if (HEADER_VARS.includes(name) && credentialHeader.test(value.toLowerCase())) {
    return `${name} adds a credential header (Authorization or an API key) to the client's requests, which bills that key's account instead of your plan`;
  }
  if (Object.hasOwn(URL_VARS, name)) {
    const v = value.trim().toLowerCase().replace(/\/+$/, '');
    const own = URL_VARS[name]!;
    if (v !== '' && v !== own) {
      return `${name} sends the client's requests, with your plan's token, to ${own ? `another host than its own ${own}` : 'an endpoint that is not the plan\'s'}, where they are billed or read by someone else`;
    }
  }
  return undefined;
}

/** Why a Claude Code settings key names a credential helper, or undefined. */
export function helperIssue(key: string): string | undefined {
  if (key === 'apiKeyHelper') return "apiKeyHelper is set, so Claude Code would send that script's output as an API key and bill every token to that account instead of your subscription";
  return HELPER_KEYS.includes(key) ? `${key} is set, so Claude Code would run that command and send what it prints as a credential, billed to that account instead of your plan` : undefined;
}

const awkList = (l: readonly string[]) => ` ${l.join(' ')} `;

/** `text`'s lines indented by `n` spaces (the presets' fragments are written unindented). */
const indent = (text: string, n: number) => text.split('\n').map((l) => (l ? ' '.repeat(n) + l : l)).join('\n');

/**
 * VERDICT_AWK's part from the presets (src/harness/registry.ts): each one's rules, then the
 * END that prints the verdict: every preset's but the first under `if (which == "<id>")`,
 * the last registered first, then the first's, which the others fall through to.
 */
function verdictRules(): string {
  const [first, ...others] = PRESETS;
  const guarded = [...others].reverse().map((p) => `      if (which == "${p.id}") {\n${indent(p.billing.verdict.end, 8)}\n      }\n`);
  return `${PRESETS.map((p) => indent(p.billing.verdict.rule, 4)).join('\n')}\n    END {\n${guarded.join('')}${indent(first!.billing.verdict.end, 6)}\n    }`;
}

/** FILES_AWK's per-line scans of the presets whose files are not JSON (their `billing.filesScan`), each under `if (which == "<id>")`. */
function filesScans(): { begin: string; line: string } {
  const own = PRESETS.filter((p) => p.billing.filesScan);
  return {
    begin: own.map((p) => `${indent(p.billing.filesScan!.begin, 6)}\n`).join(''),
    line: own.map((p) => `          if (which == "${p.id}") {\n${indent(p.billing.filesScan!.line, 12)}\n            continue\n          }\n`).join(''),
  };
}

/**
 * VERDICT_AWK, with -v rc=EXIT -v which=ID (the preset's id) -v tok=0|1 (the agent's env sets
 * CLAUDE_CODE_OAUTH_TOKEN) and the operands STDOUT-FILE STDERR-FILE: prints one line,
 * "ok METHOD PROVIDER IDENTITY" on the plan, else "no WHAT-IT-SAW". The rules of each client
 * are its descriptor's billing.verdict (src/harness/<id>/index.ts), put together by
 * verdictRules: claude, the JSON of `claude auth status` on stdout; codex, the "Logged in
 * using ChatGPT" line of `codex login status`.
 * Values repeated in a verdict keep only [A-Za-z0-9 ._@/:+*-] (others become "?"), at most 80.
 */
export const VERDICT_AWK = String.raw`
    function shown(v) {
      gsub(/[^A-Za-z0-9 ._@\/:+*-]/, "?", v)
      return substr(v, 1, 80)
    }
    # The value of "k" in the JSON text t: "s" and the string, "l" and a literal, "" when absent.
    function val(k,   i, s, c, v) {
      i = index(t, "\"" k "\"")
      if (!i) return ""
      s = substr(t, i + length(k) + 2)
      sub(/^[ \t\r\n]*:[ \t\r\n]*/, "", s)
      if (substr(s, 1, 1) != "\"") {
        match(s, /^[a-z0-9.-]*/)
        return "l" substr(s, 1, RLENGTH)
      }
      v = ""
      s = substr(s, 2)
      while (length(s) && substr(s, 1, 1) != "\"") {
        c = substr(s, 1, 1)
        if (c == "\\") {
          v = v c
          s = substr(s, 2)
          c = substr(s, 1, 1)
        }
        v = v c
        s = substr(s, 2)
      }
      return "s" v
    }
    function str(k,   v) {
      v = val(k)
      return substr(v, 1, 1) == "s" ? substr(v, 2) : ""
    }
${verdictRules()}`;

/**
 * FILES_AWK, with -v which=ID (the preset's id) -v keys=" NAME NAME ... " (the credential
 * names) and the files as operands: prints the first key that moves the run off the plan
 * and, on the next line, its file; nothing when none does. claude: any JSON object key that
 * is a credential helper (HELPER_KEYS), a credential name, any NAME_API_KEY, or has a
 * backslash escape; a header or base-URL variable (HEADER_VARS, URL_VARS) whose value
 * carries a credential header or another host by carrierIssue's rules, or is not a plain
 * JSON string (a number, an object, an escape other than \n \r \t \/ \\ \"); a file over
 * 1 MiB is a hit in itself. A preset whose files are not JSON scans them its own way, per line
 * (its descriptor's billing.filesScan: codex's TOML). A missing or unreadable file is skipped.
 */
export const FILES_AWK = String.raw`
    function shown(v) {
      gsub(/[^A-Za-z0-9 ._@\/:+*-]/, "?", v)
      return substr(v, 1, 80)
    }
    function found(k, f) {
      print shown(k)
      print f
      exit
    }
    # The JSON string at the start of s (after blanks), decoded; "\001" when it is not a
    # plain string (fail closed: such a value is a hit).
    function jstr(s,   v, c) {
      sub(/^[ \t\r\n]*/, "", s)
      if (substr(s, 1, 1) != "\"") return "\001"
      s = substr(s, 2)
      v = ""
      while (length(s) && substr(s, 1, 1) != "\"") {
        c = substr(s, 1, 1)
        if (c == "\\") {
          c = substr(s, 2, 1)
          if (c == "n") c = "\n"
          else if (c == "r") c = "\r"
          else if (c == "t") c = "\t"
          else if (c != "/" && c != "\\" && c != "\"") return "\001"
          s = substr(s, 2)
        }
        v = v c
        s = substr(s, 2)
      }
      return length(s) ? v : "\001"
    }
    # Whether K=V carries a credential header or another host (carrierIssue's rules).
    function carries(k, v,   o) {
      if (v == "\001") return 1
      v = tolower(v)
      if (index(hdrs, " " k " ")) return v ~ hdre
      sub(/^[ \t\r\n]+/, "", v)
      sub(/[ \t\r\n]+$/, "", v)
      sub(/\/+$/, "", v)
      o = substr(urls, index(urls, " " k "=") + length(k) + 2)
      o = substr(o, 1, index(o, " ") - 1)
      return v != "" && v != o
    }
    BEGIN {
      q = "\047"
      hdrs = "${awkList(HEADER_VARS)}"
      hdre = "${CREDENTIAL_HEADER}"
      urls = "${awkList(Object.entries(URL_VARS).map(([k, v]) => `${k}=${v}`))}"
      helpers = "${awkList(HELPER_KEYS)}"
${filesScans().begin}      for (i = 1; i < ARGC; i++) {
        f = ARGV[i]
        t = ""
        while ((getline l < f) > 0) {
${filesScans().line}          t = t l "\n"
          if (length(t) > 1048576) found("(the file, larger than 1 MiB)", f)
        }
        close(f)
        while (match(t, /"([^"\\]|\\.)*"[ \t\r\n]*:/)) {
          k = substr(t, RSTART + 1, RLENGTH - 1)
          t = substr(t, RSTART + RLENGTH)
          sub(/"[ \t\r\n]*:$/, "", k)
          if (index(k, "\\") || index(helpers, " " k " ") || index(keys, " " k " ") || k ~ /._API_KEY$/) found(k, f)
          if ((index(hdrs, " " k " ") || index(urls, " " k "=")) && carries(k, jstr(t))) found(k, f)
        }
      }
    }`;

/**
 * TOKEN_AWK, with the file of `claude auth status --text`'s stdout as its operand: exit 0
 * when a line (a trailing CR dropped) is exactly "Auth token: CLAUDE_CODE_OAUTH_TOKEN"
 * (Claude Code 2.1.197's words for a setup token; an ANTHROPIC_AUTH_TOKEN, billed per
 * token, is named there instead), else 1.
 */
export const TOKEN_AWK = String.raw`{ sub(/\r$/, "") } $0 == "Auth token: CLAUDE_CODE_OAUTH_TOKEN" { f = 1 } END { exit !f }`;

/** What the wrapper and install say when TOKEN_AWK finds no such line. */
export const TOKEN_REFUSAL = 'claude auth status --text does not say "Auth token: CLAUDE_CODE_OAUTH_TOKEN" (an ANTHROPIC_AUTH_TOKEN from a settings file is billed per token)';
