// src/json-edit.ts: install's menu edits the spec file's text; every byte it does not edit stays.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setJsonValue } from '../src/json-edit.ts';

const SPEC = '{\n\t"$schema": "./hbgen.schema.json",\n\t"agent": { "prompt": "a, b: \\"c\\" {d} [e]", "model": "opus" },\n\t"schedule": {"every": "30m"},\n\t"empty": {}\n}\n';

test('a value replaced, added, removed: the rest byte for byte, the result valid JSON with the intended value', () => {
  const cases: [string[], unknown, string][] = [
    [['schedule', 'every'], '1h', SPEC.replace('"every": "30m"', '"every": "1h"')],
    [['agent', 'effort'], 'high', SPEC.replace('"model": "opus" }', '"model": "opus", "effort": "high" }')],
    [['agent', 'model'], undefined, SPEC.replace(', "model": "opus"', '')],
    [['agent', 'prompt'], undefined, SPEC.replace('"prompt": "a, b: \\"c\\" {d} [e]", ', '')],
    [['empty', 'x'], [1, 'a,b'], SPEC.replace('"empty": {}', '"empty": {"x": [1, "a,b"]}')],
    [['cap'], 20, SPEC.replace('"empty": {}\n}', '"empty": {},\n\t"cap": 20\n}')],
    [['sandbox', 'allowHosts'], ['github.com'], SPEC.replace('"empty": {}\n}', '"empty": {},\n\t"sandbox": {"allowHosts": ["github.com"]}\n}')],
    [['nothing'], undefined, SPEC],
  ];
  for (const [path, v, want] of cases) {
    const got = setJsonValue(SPEC, path, v);
    assert.is(got, want, path.join('.'));
    const parsed = JSON.parse(got);
    assert.equal(path.reduce((o, k) => o?.[k], parsed), v, path.join('.'));
  }
});

test('text that is not JSON is never edited', () => {
  assert.throws(() => setJsonValue('{"a": 1,}', ['a'], 2));
});

test.run();
