// The billing rules, written once: two awk programs. The wrapper runs them before every wake
// (templates/partials/heartbeat/55-billing.hbs and 56-billing-files.hbs, rendered in from
// here) and install runs the very same text on the same host (src/billing.ts verdict and
// fileHit), so the same client output or settings file gets the same verdict in both
// places. awk because the wrapper is POSIX sh; the programs stay within POSIX awk (mawk,
// gawk, busybox and macOS awk all run them). See src/billing.ts for what the clients print.

/**
 * VERDICT_AWK, with -v rc=EXIT -v which=claude-code|codex -v tok=0|1 (the agent's env sets
 * CLAUDE_CODE_OAUTH_TOKEN) and the operands STDOUT-FILE STDERR-FILE: prints one line,
 * "ok METHOD PROVIDER IDENTITY" on the plan, else "no WHAT-IT-SAW". claude: the JSON of
 * `claude auth status` on stdout; the plan is claude.ai with a subscriptionType and no
 * apiKeySource, or oauth_token with tok=1, both on firstParty with exit 0. codex: the
 * "Logged in using ChatGPT" line of `codex login status` (stdout or stderr) with exit 0.
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
    FILENAME == ARGV[1] && which == "claude-code" { t = t $0 "\n"; next }
    which == "codex" {
      l = $0
      sub(/[\r \t]+$/, "", l)
      if (l == "Logged in using ChatGPT") chat = 1
      if (l ~ /^Not logged in/) notin = 1
      if (!hassaid && (l ~ /^Logged in using / || l ~ /^API key configured/)) {
        # "API key configured - sk-t***-key" shows part of the key: only its first words are repeated.
        said = l
        if (l ~ /^API key configured/) said = "API key configured"
        hassaid = 1
      }
    }
    END {
      if (which == "codex") {
        cmd = "codex login status"
        if (rc == 0 && chat) { print "ok chatgpt openai ChatGPT login"; exit }
        if (notin) { print "no " cmd " says not logged in"; exit }
        if (hassaid) { print "no " cmd " says \"" shown(said) "\"" (rc != 0 ? " (exit " rc ")" : ""); exit }
        print "no " cmd " printed no status hbgen can read (exit " rc ")"
        exit
      }
      cmd = "claude auth status"
      x = t
      sub(/^[ \t\r\n]+/, "", x)
      sub(/[ \t\r\n]+$/, "", x)
      if (substr(x, 1, 1) != "{" || substr(x, length(x), 1) != "}" || substr(val("authMethod"), 1, 1) != "s") {
        print "no " cmd " printed no status hbgen can read (exit " rc ")"
        exit
      }
      m = str("authMethod"); p = str("apiProvider"); src = str("apiKeySource"); sb = str("subscriptionType")
      if (m == "none" || val("loggedIn") == "lfalse") { print "no " cmd " says not logged in"; exit }
      if (rc == 0 && p == "firstParty" && src == "") {
        if (m == "claude.ai" && sb != "") { print "ok claude.ai firstParty Claude subscription login (" shown(sb) ")"; exit }
        if (m == "oauth_token" && tok) { print "ok oauth_token firstParty Claude subscription token (CLAUDE_CODE_OAUTH_TOKEN)"; exit }
      }
      s = cmd " says authMethod \"" shown(m) "\""
      if (m == "oauth_token" && !tok && rc == 0 && p == "firstParty" && src == "") s = s " with no CLAUDE_CODE_OAUTH_TOKEN in the agent's env (an ANTHROPIC_AUTH_TOKEN, billed per token, is reported so too)"
      if (src != "") s = s ", apiKeySource \"" shown(src) "\""
      if (p != "firstParty") s = s ", apiProvider \"" shown(p) "\""
      if (m == "claude.ai" && sb == "" && src == "") s = s ", no subscriptionType"
      if (rc != 0) s = s " (exit " rc ")"
      print "no " s
    }`;

/**
 * FILES_AWK, with -v which=claude-code|codex -v keys=" NAME NAME ... " (the credential
 * names) and the files as operands: prints the first key that moves the run off the plan
 * and, on the next line, its file; nothing when none does. claude: any JSON object key that
 * is apiKeyHelper, a credential name, any NAME_API_KEY, or has a backslash escape; a file
 * over 1 MiB is a hit in itself. codex (TOML): experimental_bearer_token, env_key, or
 * model_provider with any value other than "openai", bare, quoted or dotted; a quoted key
 * with an escape. A missing or unreadable file is skipped.
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
    BEGIN {
      q = "\047"
      re = "(^|[ \t{,." q "\"])(experimental_bearer_token|env_key|model_provider)[" q "\"]?[ \t]*="
      esc = "\"[^\"=]*\\\\[^\"=]*\"[ \t]*="
      for (i = 1; i < ARGC; i++) {
        f = ARGV[i]
        t = ""
        while ((getline l < f) > 0) {
          if (which == "codex") {
            sub(/\r$/, "", l)
            if (l ~ esc) found("a key with an escape", f)
            while (match(l, re)) {
              k = substr(l, RSTART, RLENGTH)
              l = substr(l, RSTART + RLENGTH)
              sub(/^[^a-z]*/, "", k)
              sub(/[^a-z_]*$/, "", k)
              if (k != "model_provider") found(k, f)
              v = l
              sub(/^[ \t]*/, "", v)
              c = substr(v, 1, 1)
              if (c != "\"" && c != q) found(k, f)
              v = substr(v, 2)
              if (substr(v, 1, 7) != "openai" c) found(k, f)
            }
            continue
          }
          t = t l "\n"
          if (length(t) > 1048576) found("(the file, larger than 1 MiB)", f)
        }
        close(f)
        while (match(t, /"([^"\\]|\\.)*"[ \t\r\n]*:/)) {
          k = substr(t, RSTART + 1, RLENGTH - 1)
          t = substr(t, RSTART + RLENGTH)
          sub(/"[ \t\r\n]*:$/, "", k)
          if (index(k, "\\") || k == "apiKeyHelper" || index(keys, " " k " ") || k ~ /._API_KEY$/) found(k, f)
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
