// Reads llama-cpp-python's server log (its stderr with verbose on): one record per finished
// completion, from the lines that llama-cpp-python 0.3.36 and its bundled llama.cpp
// (ggml-org/llama.cpp@0c1e57098) print.
//
//   Llama.generate: 5 prefix-match hit, remaining 2087 prompt tokens to eval
//   Llama.generate: full prompt already cached, skipping reset
//   llama_perf_context_print:        load time =    1234.56 ms
//   llama_perf_context_print: prompt eval time =     812.34 ms /  2087 tokens (    0.39 ms per token,  2569.15 tokens per second)
//   llama_perf_context_print:        eval time =     110.00 ms /    15 runs   (    7.33 ms per token,   136.36 tokens per second)
//   llama_perf_context_print:       total time =     930.12 ms /  2102 tokens
//
// llama-cpp-python prints the "Llama.generate" line (llama_cpp/llama.py, Llama.generate)
// when the new prompt shares a prefix with the previous one (its one KV cache holds only the
// last prompt), and the perf block (llama.cpp src/llama-context.cpp,
// llama_perf_context_print) after every completion that ran to its end: a client that
// disconnects early gets no block. "prompt eval" counts the tokens decoded in batches of more
// than one token; a last batch of one token counts as "eval" (llama_context::decode).

const NUMBER = String.raw`([\d.]+)`;
const PREFIX_HIT = /Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval/;
const FULL_HIT = /Llama\.generate: full prompt already cached/;
const PROMPT_EVAL = new RegExp(String.raw`prompt eval time =\s*${NUMBER} ms /\s*(\d+) tokens`);
const EVAL = new RegExp(String.raw`\beval time =\s*${NUMBER} ms /\s*(\d+) runs`);
const TOTAL = new RegExp(String.raw`total time =\s*${NUMBER} ms /\s*(\d+) tokens`);
const CONTEXT_OVERFLOW = /Requested tokens \((\d+)\) exceed context window of (\d+)/;

/**
 * Parses a stretch of the server log. Returns { completions, overflows }:
 * - completions: [{ prefix_hit_tokens, remaining_tokens, full_hit, prompt_tokens,
 *   prompt_eval_ms, prompt_eval_tokens, eval_ms, eval_runs, total_ms }] in order, where
 *   prompt_tokens = prefix + remaining when the prefix line was printed, else null (the first
 *   request after start shares nothing with an earlier prompt);
 * - overflows: [{ prompt_tokens, n_ctx }] for each "exceed context window" error seen.
 */
export function parseServerLog(text) {
  const completions = [];
  const overflows = [];
  let pending = { prefix_hit_tokens: 0, remaining_tokens: null, full_hit: false };
  let current = null;
  for (const line of text.split(/\r?\n/)) {
    let match;
    if ((match = line.match(PREFIX_HIT))) {
      pending = { prefix_hit_tokens: Number(match[1]), remaining_tokens: Number(match[2]), full_hit: false };
    } else if (FULL_HIT.test(line)) {
      pending = { ...pending, full_hit: true, remaining_tokens: 0 };
    } else if ((match = line.match(PROMPT_EVAL))) {
      current = { ...pending, prompt_eval_ms: Number(match[1]), prompt_eval_tokens: Number(match[2]) };
    } else if ((match = line.match(EVAL)) && current) {
      current.eval_ms = Number(match[1]);
      current.eval_runs = Number(match[2]);
    } else if ((match = line.match(TOTAL)) && current) {
      current.total_ms = Number(match[1]);
      current.prompt_tokens =
        current.remaining_tokens === null ? null : current.prefix_hit_tokens + current.remaining_tokens;
      completions.push(current);
      current = null;
      pending = { prefix_hit_tokens: 0, remaining_tokens: null, full_hit: false };
    } else if ((match = line.match(CONTEXT_OVERFLOW))) {
      overflows.push({ prompt_tokens: Number(match[1]), n_ctx: Number(match[2]) });
      pending = { prefix_hit_tokens: 0, remaining_tokens: null, full_hit: false };
    }
  }
  return { completions, overflows };
}
