// The server-log reader against lines printed by llama-cpp-python 0.3.36 (captured from a run
// of the benchmark). Run: node --test bench/llama/
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseServerLog } from './log.mjs';

const LOG = `INFO:     127.0.0.1:53512 - "POST /v1/chat/completions HTTP/1.1" 200 OK
llama_perf_context_print:        load time =       0.23 ms
llama_perf_context_print: prompt eval time =     264.13 ms /   956 tokens (    0.28 ms per token,  3619.43 tokens per second)
llama_perf_context_print:        eval time =      12.07 ms /     7 runs   (    1.72 ms per token,   579.95 tokens per second)
llama_perf_context_print:       total time =     751.83 ms /   963 tokens
llama_perf_context_print:    graphs reused =          6
Llama.generate: 3 prefix-match hit, remaining 3994 prompt tokens to eval
llama_perf_context_print:        load time =       0.23 ms
llama_perf_context_print: prompt eval time =    3111.44 ms /  3994 tokens (    0.78 ms per token,  1283.67 tokens per second)
llama_perf_context_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token,      inf tokens per second)
llama_perf_context_print:       total time =    3286.67 ms /  3995 tokens
Exception: Requested tokens (16526) exceed context window of 8192
Llama.generate: 2090 prefix-match hit, remaining 1 prompt tokens to eval
llama_perf_context_print:        load time =       0.23 ms
llama_perf_context_print: prompt eval time =       0.00 ms /     1 tokens (    0.00 ms per token,      inf tokens per second)
llama_perf_context_print:        eval time =       9.10 ms /    16 runs   (    0.57 ms per token,  1758.24 tokens per second)
llama_perf_context_print:       total time =      20.00 ms /    17 tokens
`;

test('one record per finished completion, with the prefix the server reused', () => {
  const { completions, overflows } = parseServerLog(LOG);
  assert.equal(completions.length, 3);
  assert.deepEqual(
    completions.map((c) => [c.prefix_hit_tokens, c.remaining_tokens, c.prompt_tokens, c.prompt_eval_tokens, c.prompt_eval_ms, c.eval_runs]),
    [
      [0, null, null, 956, 264.13, 7],
      [3, 3994, 3997, 3994, 3111.44, 1],
      [2090, 1, 2091, 1, 0, 16],
    ],
  );
  assert.deepEqual(overflows, [{ prompt_tokens: 16526, n_ctx: 8192 }]);
});

test('a completion cut short prints no block and leaves nothing behind', () => {
  const { completions } = parseServerLog('Llama.generate: 5 prefix-match hit, remaining 100 prompt tokens to eval\nINFO: disconnected\n');
  assert.equal(completions.length, 0);
});
