// A STAND-IN for the Anthropic Messages API on 127.0.0.1 (offline there is no model): its
// answers ask for Bash tool calls, one per answer, in order; once every one has its
// tool_result, it ends the turn with "done". Streaming answers (text/event-stream) in the
// shape of the Messages API's SSE events: message_start, content_block_*, message_delta,
// message_stop. Other paths (count_tokens included) get a 404.
// In a test's own process (the client runs beside it): standInModel(commands, onRequest).
// As a process of its own, so that it answers while the test process blocks in spawnSync:
//   node model-standin.mjs SCRIPT LOG
//   SCRIPT: JSON {"commands": ["sh command", …]}
//   LOG:    every request is appended as one JSON line {method, url, body}: what the client
//           sent, the tool results included (the test reads what the agent saw there).
//   It prints its port on stdout once it listens.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** The server (not yet listening); `onRequest({ method, url, body })` sees every request first. */
export function standInModel(commands, onRequest = () => {}) {
  return createServer((q, r) => {
    let body = '';
    q.on('data', (d) => (body += d));
    q.on('end', () => {
      onRequest({ method: q.method, url: q.url, body });
      if (!q.url?.startsWith('/v1/messages') || q.url.includes('count_tokens')) {
        r.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      let j = {};
      try {
        j = JSON.parse(body || '{}');
      } catch {
        // answered as a request without tools
      }
      // How many tool calls have their result already: the next one to ask for.
      const done = JSON.stringify(j.messages ?? []).split('"type":"tool_result"').length - 1;
      const ask = (j.tools ?? []).some((t) => t.name === 'Bash') && done < commands.length;
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type, data) => r.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('message_start', { message: { id: `msg_${done}`, type: 'message', role: 'assistant', model: j.model, content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } });
      if (ask) {
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${done}`, name: 'Bash', input: {} } });
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command: commands[done], description: `step ${done}` }) } });
      } else {
        ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'done' } });
      }
      ev('content_block_stop', { index: 0 });
      ev('message_delta', { delta: { stop_reason: ask ? 'tool_use' : 'end_turn' }, usage: { output_tokens: 1 } });
      ev('message_stop', {});
      r.end();
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { commands } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const log = process.argv[3];
  standInModel(commands, (req) => appendFileSync(log, `${JSON.stringify(req)}\n`)).listen(0, process.env.HBTEST_LISTEN ?? '127.0.0.1', function () {
    process.stdout.write(`${this.address().port}\n`);
  });
}
