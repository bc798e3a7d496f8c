// A STAND-IN for the OpenAI Responses API on 127.0.0.1, for the real codex exec (offline
// there is no model). codex 0.171.0 streams `POST /v1/responses` (stream: true) and reads
// its server-sent events: response.created, response.output_item.done (each output item:
// a function_call, a custom_tool_call, an assistant message), response.completed (with the
// usage). Shapes as codex sends and reads them: its requests captured on 127.0.0.1 (the
// tools it offers: exec_command {cmd, sandbox_permissions, justification, …}, apply_patch
// a custom freeform tool), and the Responses API's streaming events
// (https://platform.openai.com/docs/api-reference/responses-streaming).
// Each answer asks for the next scripted tool call, one per answer, in order; once every one
// has its output in the request's input, it answers the message "done". Other paths get a 404.
// In a test's own process: standInResponses(calls, onRequest).
// As a process of its own: node responses-standin.mjs SCRIPT LOG
//   SCRIPT: JSON {"calls": [CALL, …]}, a CALL either {"exec": {cmd, …}} (exec_command's
//           arguments) or {"patch": "*** Begin Patch …"} (apply_patch's input)
//   LOG:    every request appended as one JSON line {method, url, body}
//   It prints its port on stdout once it listens.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** The server (not yet listening); `onRequest({ method, url, body })` sees every request first. */
export function standInResponses(calls, onRequest = () => {}) {
  let n = 0;
  return createServer((q, r) => {
    let body = '';
    q.on('data', (d) => (body += d));
    q.on('end', () => {
      onRequest({ method: q.method, url: q.url, body });
      if (q.method !== 'POST' || !q.url?.startsWith('/v1/responses')) {
        r.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      let j = {};
      try {
        j = JSON.parse(body || '{}');
      } catch {
        // answered as a request with no tool outputs yet
      }
      // How many calls have their output already: the next one to ask for.
      const done = (Array.isArray(j.input) ? j.input : []).filter((i) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output').length;
      const id = `resp_${++n}`;
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type, data) => r.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('response.created', { response: { id } });
      const call = calls[done];
      let item;
      if (call?.exec) item = { type: 'function_call', id: `fc_${done}`, call_id: `call_${done}`, name: 'exec_command', arguments: JSON.stringify(call.exec) };
      else if (call?.patch) item = { type: 'custom_tool_call', id: `ctc_${done}`, call_id: `call_${done}`, name: 'apply_patch', input: call.patch };
      else item = { type: 'message', id: `msg_${done}`, role: 'assistant', content: [{ type: 'output_text', text: 'done' }] };
      ev('response.output_item.done', { output_index: 0, item });
      ev('response.completed', { response: { id, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 } } });
      r.end();
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { calls } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const log = process.argv[3];
  standInResponses(calls, (req) => appendFileSync(log, `${JSON.stringify(req)}\n`)).listen(0, process.env.HBTEST_LISTEN ?? '127.0.0.1', function () {
    process.stdout.write(`${this.address().port}\n`);
  });
}
