//! The long help text (`ttft-sim --help`), also the reference in the crate README.

/// Everything a user of the simulator needs to know, printed after the flag list.
pub const HELP: &str = r#"ENDPOINTS (127.0.0.1 only)
  POST /v1/chat/completions   OpenAI Chat Completions. stream:true -> SSE chunks ending in
                              `data: [DONE]`; stream_options.include_usage adds a
                              `choices: []` usage chunk before it; stream:false -> JSON.
  POST /v1/messages           Anthropic Messages: message_start, content_block_start,
                              ping, thinking_delta..., signature_delta, content_block_stop,
                              text block, message_delta (cumulative usage), message_stop.
  POST /v1/responses          OpenAI Responses: response.created, response.in_progress,
                              reasoning item + reasoning_summary_text.delta...,
                              message item + output_text.delta..., response.completed
                              (response.incomplete when max_output_tokens cut it).
  GET  /v1/models             OpenAI list of the profiles.
  OPTIONS on every route      CORS preflight (204).
  Any other path -> 404 {"error":{"message":"Invalid URL (POST /v1/chat/completion)",
  "type":"invalid_request_error","param":null,"code":null}} as api.openai.com answers.
  Some gateways also accept unversioned paths; --accept-unversioned serves
  /chat/completions, /messages, /responses and /models too.
  On start, exactly one line goes to stdout: `ttft-sim listening on http://127.0.0.1:PORT`.

TIMING MODEL (deterministic; all times in ms after the request reached the server)
  slots      --slots N requests run at once; a request holds a slot from its start until
             its stream ends; later requests wait in FIFO order (queue_ms). Since every
             duration is known on arrival, the queue time is known on arrival too. A
             client that disconnects frees its slot for requests arriving afterwards.
  prefill    prefill_ms = base_ms + a_ms_per_token*n + b_ms_per_token2*n^2, where
             n = prompt_tokens - cached_tokens (profile field prefill_ms, if set, replaces
             the formula); + reserve_ms_per_max_token * max_tokens (default 0).
  first token  at queue_ms + prefill_ms: reasoning if the model reasons, else the answer.
  decode     every later token (reasoning and answer alike) itl_ms after the previous one.
             E.g. prefill 200, 10 reasoning tokens, itl 50: first reasoning at 200, first
             answer at 200 + 10*50 = 700.
  early_role=1   the role-only chunk {"role":"assistant","content":""} (Anthropic:
             message_start + content_block_start + ping; Responses: response.created +
             response.in_progress) is sent on arrival instead of just before the first token.
  keepalive_ms=K `: keep-alive` SSE comments every K ms until the first token.
  max_tokens caps the output tokens (reasoning first), never the TTFT (unless
             reserve_ms_per_max_token > 0). Read from max_tokens / max_completion_tokens
             (chat), max_tokens (messages), max_output_tokens (responses).
  jitter     none unless --jitter-ms J: uniform [0, J) ms added to prefill and to every
             ITL gap, from SplitMix64 seeded by --seed and the request number.

TOKEN COUNTING (prompt_tokens)
  Each CJK ideograph is 1 token; every other maximal run of non-whitespace characters is
  ceil(chars / 4) tokens (chars = Unicode scalar values); whitespace is free. Summed over
  every text of the request: chat messages[].content (string or text parts, system
  included), messages' `system` + messages[].content, responses' `instructions` + `input`.
  Roles and JSON syntax are not counted. "Hello, world!" = 4; "你好" = 2.

OUTPUT TEXT
  Fixed word lists, cycled, one entry per token ("Let me think about this..." for
  reasoning, "Here is a simulated answer from ttft-sim..." for the answer); in Chinese
  when the last prompt text contains a CJK ideograph. paragraph_tokens=P starts every
  P-th answer token with a paragraph break (\n\n) instead of a space (default 0: one line).

PREFIX CACHE
  Per model (name before `@`), in blocks of --block-tokens (64) tokens: cached_tokens =
  the longest run of whole leading blocks whose chained hashes were seen before (a change
  at token 0 means no hit). A prompt's blocks are remembered when it arrives. Reported as
  chat usage.prompt_tokens_details.cached_tokens, Anthropic cache_read_input_tokens (with
  input_tokens = the uncached remainder, cache_creation_input_tokens = 0), Responses
  usage.input_tokens_details.cached_tokens. --no-cache turns it off.

PROFILES (model names; every field overridable)
  sim-fast            base_ms=60  a_ms_per_token=0.05 b_ms_per_token2=0.000001 itl_ms=15
                      answer_tokens=40, no reasoning
  sim-reasoning       base_ms=150 a_ms_per_token=0.1  b_ms_per_token2=0.000002 itl_ms=25
                      reasoning_tokens=60 (reasoning_content) answer_tokens=40
  sim-think           base_ms=120 a_ms_per_token=0.1  b_ms_per_token2=0.000002 itl_ms=25
                      reasoning_tokens=40 (inline <think>) answer_tokens=40
  sim-slow-prefill    base_ms=300 a_ms_per_token=0.5  b_ms_per_token2=0.0002   itl_ms=30
                      answer_tokens=40 (1k tokens: 1000 ms; 4k tokens: 5500 ms)
  sim-linear-prefill  base_ms=200 a_ms_per_token=0.5  b_ms_per_token2=0        itl_ms=30
                      answer_tokens=40 (1k tokens: 700 ms)
  Defaults of every profile unless listed: prefill_ms unset, reasoning_tokens=0,
  reasoning_style=none, early_role=0, keepalive_ms=0, reserve_ms_per_max_token=0,
  fault_after_tokens=3, retry_after_s=2. A config-file profile with a new name starts
  from base_ms=100 a_ms_per_token=0.1 b_ms_per_token2=0 itl_ms=20 answer_tokens=40.

PROFILE FIELDS (keys for the suffix, --set and the config file; times are numbers from
0 to 10000000, counts whole numbers from 0 to 1000000, booleans 1/0/true/false)
  base_ms, a_ms_per_token, b_ms_per_token2   prefill formula (ms, ms/token, ms/token^2)
  prefill_ms                fixed prefill, ms (replaces the formula; `none` = formula)
  itl_ms                    inter-token latency, ms
  reasoning_tokens          reasoning tokens before the answer
  answer_tokens             answer tokens
  paragraph_tokens          a paragraph break before every P-th answer token (0 = none)
  reasoning_style           chat field for reasoning: reasoning_content (DeepSeek),
                            reasoning (vLLM/Ollama), think (inline <think>...</think> in
                            content), none (reasoning takes time but is not streamed in any
                            dialect; only usage reasoning_tokens tells)
  early_role                1/0: role chunk on arrival (see above)
  keepalive_ms              `: keep-alive` interval until the first token, ms (0 = off)
  reserve_ms_per_max_token  extra prefill per requested max_tokens, ms
  fault_after_tokens        visible tokens before midstream/drop/malformed strike
  retry_after_s             Retry-After of the 429 fault, seconds

MODEL-NAME SUFFIX (per request, through any client that lets you type a model)
  NAME@key=value,key=value,...   e.g.
  sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,early_role=1
  plus fault=NAME. An unknown key or bad value -> 400 naming the known keys. An unknown
  NAME -> 404 (OpenAI code model_not_found; Anthropic not_found_error "model: NAME").
  Responses echo the model exactly as sent.

FAULTS (suffix fault=NAME or request header `x-sim-fault: NAME`; the header wins)
  400, 401, 403, 404, 429 (with Retry-After), 500   that status with the dialect's body
  midstream   HTTP 200, fault_after_tokens tokens, then the dialect's error event (chat
              `data: {"error": {...}}`, Anthropic `event: error` overloaded_error,
              Responses `event: error`), and no terminal marker
  stall       HTTP 200 headers, then no byte until the client gives up (takes no slot)
  drop        HTTP 200, a few tokens, then the connection is cut (no terminal marker;
              the cut comes at the next token time, at least 20 ms after the last bytes)
  malformed   a chunk of invalid JSON after a few tokens, then the normal rest
  nocors      the normal stream without any CORS header (a browser refuses it)

AUTH (--require-key KEY)
  chat and responses need `Authorization: Bearer KEY`; messages need `x-api-key: KEY`;
  /v1/models accepts either. Missing or wrong (compared exactly: a stray space is wrong)
  -> 401 in the dialect's shape; the other dialect's header style -> 401 whose message
  says which header is expected.

CORS (on unless --no-cors)
  API responses carry Access-Control-Allow-Origin: *, Allow-Methods POST, GET, OPTIONS,
  Allow-Headers authorization, content-type, x-api-key, anthropic-version,
  anthropic-dangerous-direct-browser-access, x-sim-fault; Access-Control-Max-Age: 600;
  Access-Control-Expose-Headers: retry-after and the x-sim-* headers;
  Timing-Allow-Origin: *; and always Cross-Origin-Resource-Policy: cross-origin.

GROUND-TRUTH HEADERS (on every simulated completion; ms after arrival at the server)
  x-sim-request-id, x-sim-prompt-tokens, x-sim-cached-tokens, x-sim-queue-ms,
  x-sim-prefill-ms, x-sim-first-token-ms (first visible token of any kind),
  x-sim-first-reasoning-ms (only when reasoning is streamed), x-sim-first-answer-ms,
  x-sim-end-ms, x-sim-itl-ms, x-sim-reasoning-tokens, x-sim-output-tokens.

STATIC PAGE (--dist DIR)
  Files of DIR at / (index.html for directories) with Cross-Origin-Opener-Policy:
  same-origin, Cross-Origin-Embedder-Policy: require-corp, Cross-Origin-Resource-Policy:
  same-origin (cross-origin isolation: fine-grained timers) and MIME types incl.
  application/wasm. API routes keep working for the isolated page (CORS + CORP).

CONFIG FILE (--config FILE, TOML or .json)
  Keys = long flag names with `_` (port, slots, block_tokens, no_cache, jitter_ms, seed,
  require_key, no_cors, dist, accept_unversioned); a [set] table applies fields to every
  profile; [profiles.NAME] tables change or add profiles. Precedence: built-ins < file <
  command line (--set) < model-name suffix.
"#;

#[cfg(test)]
mod tests {
    use super::HELP;
    use crate::fault::Fault;
    use crate::profile::{Profiles, PROFILE_KEYS};
    use crate::server::GROUND_TRUTH_HEADERS;

    #[test]
    fn help_documents_every_profile_key_fault_and_header() {
        for name in Profiles::builtin().by_name.keys() {
            assert!(HELP.contains(name.as_str()), "profile {name}");
        }
        for key in PROFILE_KEYS {
            assert!(HELP.contains(key), "key {key}");
        }
        for fault in Fault::names() {
            assert!(HELP.contains(fault), "fault {fault}");
        }
        for header in GROUND_TRUTH_HEADERS {
            assert!(HELP.contains(header), "header {header}");
        }
    }

    #[test]
    fn help_numbers_match_the_builtin_profiles() {
        let profiles = Profiles::builtin();
        for (name, profile) in &profiles.by_name {
            let line = HELP
                .lines()
                .find(|line| line.trim_start().starts_with(name.as_str()))
                .unwrap_or_default();
            assert!(
                line.contains(&format!("base_ms={} ", profile.base_ms)),
                "{name}: {line}"
            );
            assert!(
                line.contains(&format!("itl_ms={}", profile.itl_ms)),
                "{name}: {line}"
            );
        }
    }
}

#[cfg(test)]
mod readme_tests {
    #[test]
    fn readme_carries_the_current_help() {
        let readme = include_str!("../README.md");
        assert!(
            readme.contains(super::HELP.trim_end()),
            "crates/sim/README.md is out of date: paste `ttft-sim --help` into it"
        );
    }
}
