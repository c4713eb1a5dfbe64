// The C++ server part's readers: llama-server's log lines (captured from a run of the
// benchmark, xllamacpp 2026.10.11549), the widget's run breakdown read defensively, and the
// captured transcript tests/fixtures/sse/accounts/llamacpp_server_timings.sse against its
// sibling JSON. Run: node --test bench/llama/
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../lib.mjs';
import { breakdownOf, parseCppLog } from './cpp-server.mjs';

const LOG = `0.02.424.160 I slot launch_slot_: id  0 | task 18 | processing task, is_child = 0
0.02.424.353 W slot   operator(): id  0 | task 18 | need to evaluate at least 1 token for each active slot (n_past = 37, task.n_tokens() = 37)
0.02.447.265 I slot print_timing: id  0 | task 18 | prompt eval time =       1.53 ms /     1 tokens (    1.53 ms per token,   652.32 tokens per second)
0.02.447.270 I slot print_timing: id  0 | task 18 |        eval time =      21.41 ms /    16 tokens (    1.43 ms per token,   700.48 tokens per second)
0.02.447.271 I slot print_timing: id  0 | task 18 |       total time =      22.95 ms /    17 tokens
0.02.447.290 I slot      release: id  0 | task 18 | stop processing: n_tokens = 52, truncated = 0
0.02.905.928 I slot launch_slot_: id  0 | task 35 | processing task, is_child = 0
0.03.132.803 I slot print_timing: id  0 | task 35 | prompt eval time =     203.75 ms /  1014 tokens (    0.20 ms per token,  4976.76 tokens per second)
0.03.132.898 I slot print_timing: id  0 | task 35 |        eval time =      23.09 ms /    16 tokens (    1.54 ms per token,   649.77 tokens per second)
0.03.132.899 I slot print_timing: id  0 | task 35 |       total time =     226.83 ms /  1030 tokens
`;

test('one entry per task, in order, with its prompt eval and eval', () => {
  assert.deepEqual(parseCppLog(LOG), [
    { slot: 0, task: 18, prompt_ms: 1.53, prompt_tokens: 1, eval_ms: 21.41, eval_tokens: 16 },
    { slot: 0, task: 35, prompt_ms: 203.75, prompt_tokens: 1014, eval_ms: 23.09, eval_tokens: 16 },
  ]);
  assert.deepEqual(parseCppLog('no timing here\n'), []);
});

test('a record without a breakdown gives nulls', () => {
  const empty = breakdownOf({ run_index: 3, metrics: { ttfa_ms: 74.5 } });
  assert.equal(empty.present, false);
  assert.equal(empty.prompt_ms, null);
  assert.equal(empty.server_ms, null);
  assert.equal(empty.account, null);
  assert.equal(empty.server_side_ms, null);
  assert.equal(breakdownOf(null).present, false);
  assert.equal(breakdownOf({ breakdown: { parts: 'not a list' } }).server_ms, null);
});

test('a breakdown: parts summed by name, sources kept, the account in either place and shape', () => {
  const record = {
    breakdown: {
      parts: [
        { part: 'connection', ms: 1.2, source: 'measured' },
        { part: 'prompt', ms: 50.5, source: 'server_reported' },
        { part: 'server', ms: 10, source: 'estimated' },
        { part: 'server', ms: 2.5, source: 'estimated' },
        { part: 'network', ms: Number.NaN, source: 'measured' },
      ],
      server_account: { sources: ['llamacpp'], prompt_ms: 50.5, prompt_tokens: 259, cached_tokens: 4 },
    },
  };
  const read = breakdownOf(record);
  assert.equal(read.present, true);
  assert.equal(read.prompt_ms, 50.5);
  assert.equal(read.prompt_source, 'server_reported');
  assert.equal(read.server_ms, 12.5);
  assert.equal(read.server_source, 'estimated');
  assert.equal(read.server_side_ms, 63);
  assert.equal(read.server_claim_rejected, null);
  assert.deepEqual(read.account, { sources: ['llamacpp'], prompt_ms: 50.5, prompt_tokens: 259, cached_tokens: 4 });
  const flat = breakdownOf({ breakdown: { parts: [] }, server_account: { source: 'llamacpp', prompt_ms: 3 } });
  assert.deepEqual(flat.account, { sources: ['llamacpp'], prompt_ms: 3, prompt_tokens: null, cached_tokens: null });
});

test('the captured transcript ends with the timings its JSON records', async () => {
  const dir = path.join(ROOT, 'tests', 'fixtures', 'sse', 'accounts');
  const sse = await readFile(path.join(dir, 'llamacpp_server_timings.sse'), 'utf8');
  const meta = JSON.parse(await readFile(path.join(dir, 'llamacpp_server_timings.json'), 'utf8'));
  const events = sse.split('\n\n').filter(Boolean).map((block) => block.replace(/^data: /, ''));
  assert.equal(events.at(-1), '[DONE]');
  const last = JSON.parse(events.at(-2));
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.timings, meta.timings);
  assert.equal(last.usage.prompt_tokens, meta.timings.prompt_n + meta.timings.cache_n);
});
