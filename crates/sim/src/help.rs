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
  GET  /v1/models             OpenAI list of the profiles, each with vLLM's max_model_len
                              and llama.cpp's meta.n_ctx_train (see CONTEXT WINDOW).
  GET  /props[?model=NAME]    llama.cpp: default_generation_settings.n_ctx, total_slots.
  POST /tokenize              llama.cpp {"content"} -> {"tokens":[ids]} (with_pieces:true
                              -> [{"id","piece"}]); vLLM {"model","prompt"|"messages"} ->
                              {"count","max_model_len","tokens","token_strs":null}. Counts
                              follow TOKEN COUNTING, so they equal usage.prompt_tokens.
  GET  /__sim/info            {"name":"ttft-sim","version":...,"api_base":"/v1"}: keyless,
                              so a page can tell that its origin is ttft-sim. Every
                              response also carries `x-ttft-sim: VERSION`.
  GET|DELETE /__sim/requests  the request recorder (--record-requests, below).
  OPTIONS on every route      CORS preflight (204).
  Any other path -> 404 {"error":{"message":"Invalid URL (POST /v1/chat/completion)",
  "type":"invalid_request_error","param":null,"code":null}} as api.openai.com answers.
  Some gateways also accept unversioned paths; --accept-unversioned serves
  /chat/completions, /messages, /responses and /models too.
  On start, exactly one line goes to stdout: `ttft-sim listening on http://127.0.0.1:PORT`
  (https:// with --tls, and a second line with the certificate's hash: NETWORK, below).

TIMING MODEL (deterministic; all times in ms after the whole request, body included,
  reached the server: a slow upload is the client's time, never the script's)
  slots      --slots N requests run at once; a request holds a slot from its start until
             its stream ends; later requests wait in FIFO order (queue_ms). Since every
             duration is known on arrival, the queue time is known on arrival too. A
             client that disconnects frees its slot for requests arriving afterwards.
  prefill    prefill_ms = base_ms + a_ms_per_token*n + b_ms_per_token2*n^2, where
             n = prompt_tokens - cached_tokens (profile field prefill_ms, if set, replaces
             the formula); + reserve_ms_per_max_token * max_tokens (default 0).
  first token  at gateway_ms + queue_ms + prefill_ms: reasoning if the model reasons, else the answer.
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

TOKEN COUNTING (prompt_tokens; the rule lives in the ttft-tokens crate, shared with
ttft-core)
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

PREFIX CACHE (--cache-mode blocks | last-prompt | off; --no-cache = off)
  blocks (default; vLLM-like)  per model (name before `@`), in blocks of --block-tokens
    (64) tokens: cached_tokens = the longest run of whole leading blocks whose chained
    hashes were seen before (a change at token 0 means no hit). A prompt's blocks are
    remembered when it arrives.
  last-prompt (llama.cpp server slots, llama-cpp-python)  each slot keeps only the last
    prompt it took: cached_tokens = the common token prefix with that prompt (same model),
    at most prompt_tokens - 1 (the last prompt token is always evaluated again). A request
    takes the free slot holding the longest common prefix, else the slot that frees
    first; so with interleaved prompts on one slot nothing hits.
  Reported as chat usage.prompt_tokens_details.cached_tokens, Anthropic
  cache_read_input_tokens (with input_tokens = the uncached remainder,
  cache_creation_input_tokens = 0), Responses usage.input_tokens_details.cached_tokens.

CONTEXT WINDOW (profile field context_tokens, default 32768)
  Exposed where real servers expose it: /v1/models entries carry "max_model_len" (vLLM)
  and "meta": {"n_vocab", "n_ctx_train"} (llama.cpp); GET /props has
  default_generation_settings.n_ctx (llama.cpp); vLLM's /tokenize has max_model_len.
  --no-context-info removes all of these (and /props answers 404).
  A prompt that does not fit is refused with 400 before anything streams, in the words
  of overflow_style (the OpenAI-style routes; /v1/messages always answers as Anthropic,
  prompt > window: "prompt is too long: P tokens > N maximum"):
  openai    prompt + max_tokens > N: {"error":{"message":"This model's maximum context
            length is N tokens. However, you requested T tokens (P in the messages, M in
            the completion). Please reduce the length of the messages or completion.",
            "type":"invalid_request_error","param":"messages",
            "code":"context_length_exceeded"}} (without max_tokens: "However, your
            messages resulted in P tokens. Please reduce the length of the messages.";
            /v1/responses: "Your input exceeds the context window of this model. ...")
  vllm      prompt + max_tokens > N: {"error":{"message":"This model's maximum context
            length is N tokens. However, you requested M output tokens and your prompt
            contains at least P input tokens, for a total of at least T tokens. Please
            reduce the length of the input prompt or the number of requested output
            tokens. (parameter=input_tokens, value=P)","type":"BadRequestError",
            "param":"input_tokens","code":400}}
  llamacpp  prompt >= N: {"error":{"code":400,"message":"request (P tokens) exceeds the
            available context size (N tokens), try increasing it",
            "type":"exceed_context_size_error","n_prompt_tokens":P,"n_ctx":N}}
  --no-tokenize turns POST /tokenize off (404), as on servers without one.

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
  reasoning_style=none, early_role=0, hold_headers=0, keepalive_ms=0,
  reserve_ms_per_max_token=0, fault_after_tokens=3, retry_after_s=2, stream_usage=1,
  context_tokens=32768, overflow_style=openai, huge_line_bytes=67108864, redirect_to unset,
  content_type_bytes=65536, flood_events=2000000, flood_newlines=50000,
  flood_word_bytes=1048576. A config-file profile with a new name starts from base_ms=100
  a_ms_per_token=0.1 b_ms_per_token2=0 itl_ms=20 answer_tokens=40.

PROFILE FIELDS (keys for the suffix, --set and the config file; times are numbers from
0 to 10000000, counts whole numbers from 0 to 1000000, booleans 1/0/true/false)
  base_ms, a_ms_per_token, b_ms_per_token2   prefill formula (ms, ms/token, ms/token^2)
  prefill_ms                fixed prefill, ms (replaces the formula; `none` = formula)
 itl_ms                    inter-token latency, ms
  queue_ms                  a scripted queue before prefill, ms, on top of any wait for a
                            slot (it holds no slot); reported by the server accounts
  gateway_ms                a gateway's own time before the queue, ms (as a proxy in front
                            of the model server adds); reported by server_timing, litellm
  server_account            how the server reports its own time: none (default), or any of
                            llamacpp (`timings` on the final chat chunk: prompt_n, prompt_ms,
                            cache_n, predicted_ms), groq (`x_groq.usage` on the final chat
                            chunk: queue_time, prompt_time, completion_time, total_time, in
                            seconds), sambanova (usage.time_to_first_token, total_latency,
                            seconds; the usage chunk is always sent), server_timing (header
                            `Server-Timing: upload;dur=U, gateway;dur=G, queue;dur=Q,
                            prefill;dur=P`; U: the request's head to its body's end, as
                            the sim saw it) and litellm (header x-litellm-overhead-duration-ms: G), vllm
                            (`metrics` on the usage chunk, ms: queue_time_ms,
                            time_to_first_token_ms = prefill, generation_time_ms), nim
                            (`stats` on the usage chunk, ms), cerebras (`time_info` on the
                            finish chunk, seconds), fireworks (`perf_metrics` on the finish
                            chunk, seconds) and localai (usage.timing_prompt_processing,
                            timing_token_generation, ms), joined by +, e.g.
                            server_account=groq+litellm. vllm, nim and localai ride on the
                            usage chunk, sent with include_usage. Both headers are exposed
                            to pages (Access-Control-Expose-Headers).
  reasoning_tokens          reasoning tokens before the answer
  answer_tokens             answer tokens
  paragraph_tokens          a paragraph break before every P-th answer token (0 = none)
  reasoning_style           chat field for reasoning: reasoning_content (DeepSeek),
                            reasoning (vLLM/Ollama), think (inline <think>...</think> in
                            content), think_no_open (reasoning as plain content, then
                            `</think>`, then the answer: DeepSeek-R1 served without a
                            reasoning parser), none (reasoning takes time but is not
                            streamed in any dialect; only usage reasoning_tokens tells)
  early_role                1/0: role chunk on arrival (see above)
  hold_headers              1/0: the response headers wait for the first body frame and
                            leave with it, as nginx < 1.23 sends them over HTTP/2
  keepalive_ms              `: keep-alive` interval until the first token, ms (0 = off)
  reserve_ms_per_max_token  extra prefill per requested max_tokens, ms
  fault_after_tokens        visible tokens before midstream/drop/malformed strike
  retry_after_s             Retry-After of the 429 fault, seconds
  stream_usage              1/0: 0 = chat streams never carry usage, even when
                            include_usage asks (llama-cpp-python); stream:false answers
                            keep usage.prompt_tokens
  context_tokens            context window, tokens (1 to 100000000; CONTEXT WINDOW)
  overflow_style            openai, vllm or llamacpp (CONTEXT WINDOW)
  huge_line_bytes           length of the huge_line fault's line, bytes (1 to 16 GiB)
  redirect_to               target of the redirect fault (http:// or https:// URL)
  content_type_bytes        length of the long_content_type fault's Content-Type value,
                            bytes (20 to 200000)
  flood_events              the flood_chars fault's events (0 to 5000000)
  flood_newlines            the flood_lines fault's newlines (0 to 10000000)
  flood_word_bytes          the flood_lines fault's word, bytes (0 to 8 MiB = 8388608)

MODEL-NAME SUFFIX (per request, through any client that lets you type a model)
  NAME@key=value,key=value,...   e.g.
  sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,early_role=1
  plus fault=NAME. An unknown key or bad value -> 400 naming the known keys. An unknown
  NAME -> 404 (OpenAI code model_not_found; Anthropic not_found_error "model: NAME").
  Responses echo the model exactly as sent.

FAULTS (suffix fault=NAME, request header `x-sim-fault: NAME`, or --fault NAME for every
request that names none; the header wins, then the suffix)
  400, 401, 403, 404, 429 (with Retry-After), 500   that status with the dialect's body
  midstream   HTTP 200, fault_after_tokens tokens, then the dialect's error event (chat
              `data: {"error": {...}}`, Anthropic `event: error` overloaded_error,
              Responses `event: error`), and no terminal marker
  stall       HTTP 200 headers, then no byte until the client gives up (takes no slot)
  drop        HTTP 200, a few tokens, then the connection is cut (no terminal marker;
              the cut comes at the next token time, at least 20 ms after the last bytes)
  malformed   a chunk of invalid JSON after a few tokens, then the normal rest
  nocors      the normal stream without any CORS header (a browser refuses it)
  A hostile provider (each misbehaves on purpose):
  echo_key    401 whose error message echoes the request's key headers in full:
              "Incorrect API key provided. Received authorization: Bearer KEY[,
              x-api-key: KEY]; the key base64-encoded: B64; URL-encoded: PCT." (OpenAI
              shape, code invalid_api_key; Anthropic authentication_error)
  echo_key_midstream   HTTP 200, fault_after_tokens tokens, then the dialect's error
              event with that same message (chat code invalid_api_key, Anthropic
              authentication_error, Responses code invalid_api_key); no terminal marker
  xss         a normal stream whose reasoning and answer tokens are the payloads below
              (each one token followed by a space, cycled) and whose model id is all of
              them in one string starting with the formulas:
                <script>window.__xss=1</script>
                <img src=x onerror="window.__xss=1">
                <svg onload="window.__xss=1">
                <a href="javascript:window.__xss=1">link</a>
                [link](javascript:window.__xss=1)
                javascript:window.__xss=1
                =HYPERLINK("http://127.0.0.1:9/?leak","click")
                +cmd|' /C calc'!A0
                -1+1
                @SUM(1+1)
              Any payload that runs sets window.__xss = 1. With xss or xss_error (header
              or --fault), /v1/models also lists each payload and the combined string as
              model ids (a request with one of them gets the 404 naming it).
  xss_error   like xss, then after fault_after_tokens tokens the dialect's error event
              whose message is the combined string
  huge_line   HTTP 200, fault_after_tokens tokens, then one SSE data line of
              huge_line_bytes bytes (default 64 MiB) that never ends (a text delta
              followed by `x` bytes, no line end), written in 64 KiB chunks as fast as the
              client reads (never held in memory); then the body ends
  html_error  502 with nginx's HTML error page (text/html), as a proxy answers
  redirect    307 (method and body kept) to redirect_to, else --redirect-to, else
              http://127.0.0.1:<this port + 1>; an origin gets the request's path and
              query appended, a URL with a path is used as is
  drip        HTTP 200, then `: keep-alive` comments every 100 ms forever, never a token
              (takes no slot)
  bad_usage   a normal stream whose usage (sent even without include_usage) has one bad
              number per field: chat prompt_tokens 1e308, completion_tokens -1,
              total_tokens 1e308, cached_tokens 2.5, reasoning_tokens
              18446744073709551617 (2^64+1); Anthropic input_tokens 1e308, output_tokens
              -1, cache_read_input_tokens 2.5, cache_creation_input_tokens 2^64+1;
              Responses input_tokens 1e308, output_tokens -1, cached_tokens 2.5,
              reasoning_tokens 2^64+1, total_tokens 1e308 (stream:false bodies too)
  long_content_type   HTTP 200 with the dialect's non-streaming JSON answer (even for
              stream:true, at the time that answer is due) and the header
              `Content-Type: application/json; x=aaa...`: 'a's up to content_type_bytes
              bytes for the whole value (default 65536)
  echo_past_keys   401 with the dialect's authentication body (OpenAI code
              invalid_api_key; Anthropic authentication_error) whose message is
              "Incorrect API key provided. Keys seen: K1, K2, ..." listing every key this
              process has received in `Authorization: Bearer KEY` or `x-api-key: KEY` on
              any request (faulted or not, any route, the current one included): the 16
              most recent distinct keys, oldest first (a key sent again becomes the newest)
  echo_past_keys_midstream   HTTP 200, fault_after_tokens tokens, then the dialect's
              error event with that message and the keys again in an extra field of the
              error object, "seen": ["K1", "K2", ...] (chat and Anthropic: in "error";
              Responses: in the error event); no terminal marker
  bidi        400 with the dialect's invalid-request body whose message is
              "Request rejected. " + U+202E (right-to-left override) + "Send your API key
              to https://trusted.example to continue" reversed character by character +
              U+202C (pop directional formatting) + " Contact support.": a page that
              renders it as text shows the spoof reading forwards. With bidi or
              bidi_midstream, /v1/models also lists the id "sim-bidi-" + that U+202E ...
              U+202C payload
  bidi_midstream   HTTP 200, fault_after_tokens answer tokens (after any reasoning),
              then one answer token " " + the U+202E ... U+202C payload and one
              " " + U+2067 (right-to-left isolate) + Hebrew "shalom" (U+05E9 U+05DC
              U+05D5 U+05DD) + U+2069 (pop directional isolate), then the dialect's error
              event whose message is the bidi message; no terminal marker
  key_forms_midstream   HTTP 200, fault_after_tokens tokens, then the dialect's error
              event (as echo_key_midstream) whose message is "Incorrect API key
              provided: " + these forms of the request's key (Bearer, else x-api-key)
              separated by " | ": lowercase hex of its UTF-8 bytes, uppercase hex, the key
              reversed (by characters), the key with U+200B (zero width space) after every
              character, with U+2060 (word joiner) after every character, with U+00AD
              (soft hyphen) after every character, with U+FEFF after every 3rd character;
              no terminal marker
  key_split_panes   HTTP 200, the request's key (Bearer, else x-api-key) in
              7-character pieces (the last may be shorter) at the token times,
              alternating reasoning and answer: piece 1 reasoning, piece 2 answer, piece 3
              reasoning, ...; then the normal end and terminal marker. Chat:
              reasoning_content and content deltas (whatever reasoning_style); Anthropic:
              one block per piece (thinking, signed, or text); Responses: one output item
              per piece (reasoning with a summary, or message)
  flood_chars   HTTP 200, then flood_events (default 2000000) answer events of exactly
              one character each ('a' to 'z', cycled) at the first answer time, written in
              batches of 64 KiB as fast as the client reads, then the normal end and
              terminal marker
  flood_lines   HTTP 200, then an answer of flood_newlines (default 50000) newlines in
              events of 1000 newlines each, then one word of flood_word_bytes (default
              1 MiB) 'x's in events of 16 KiB each (the last event of each may carry
              less), then the normal end and terminal marker
  The flood faults' stream:false answer is their whole text in one JSON body; in the
  Responses stream, the done events and response.completed carry the whole text too.
  On GET /v1/models (header or --fault): the status faults, echo_key, echo_past_keys,
  html_error, redirect, stall, nocors, xss, bidi and bidi_midstream (an extra id) and
  long_content_type (the list with the long Content-Type, the default length) apply; the
  others list normally.

AUTH (--require-key KEY)
  chat and responses need `Authorization: Bearer KEY`; messages need `x-api-key: KEY`;
  /v1/models accepts either. Missing or wrong (compared exactly: a stray space is wrong)
  -> 401 in the dialect's shape; the other dialect's header style -> 401 whose message
  says which header is expected. /props, /tokenize and /__sim/* need no key.

CORS (on unless --no-cors)
  API responses carry Access-Control-Allow-Origin: *, Allow-Methods POST, GET, DELETE,
  OPTIONS, Allow-Headers authorization, content-type, x-api-key, anthropic-version,
  anthropic-dangerous-direct-browser-access, x-sim-fault, traceparent, tracestate
  (--no-trace-headers leaves the last two out, so a browser's preflight for a request
  with W3C trace context fails, as on servers that do not allow it);
  Access-Control-Max-Age: 600; Access-Control-Expose-Headers: retry-after, x-ttft-sim,
  server-timing, x-litellm-overhead-duration-ms and the x-sim-* headers; Timing-Allow-Origin: * (not with --no-timing-allow-origin, as most
  providers: the page's Resource Timing of the request then hides every phase); and
  always Cross-Origin-Resource-Policy: cross-origin.

GROUND-TRUTH HEADERS (on every simulated completion; ms after arrival at the server)
  x-sim-request-id, x-sim-prompt-tokens, x-sim-cached-tokens, x-sim-gateway-ms
  (gateway_ms), x-sim-queue-ms (the slot wait + queue_ms), x-sim-prefill-ms, x-sim-first-token-ms (first visible token of any kind),
  x-sim-first-reasoning-ms (only when reasoning is streamed), x-sim-first-answer-ms,
  x-sim-end-ms, x-sim-itl-ms, x-sim-reasoning-tokens, x-sim-output-tokens.

REQUEST RECORDER (--record-requests)
  Every request received (preflights and page files included; not /__sim/requests
  itself) is kept: GET /__sim/requests -> {"requests":[{"seq","at_ms","method","path"
  (with query),"origin","headers":[[name,value],...],"body" (first 64 KiB, lossy UTF-8),
  "body_bytes","body_truncated","client_port","connection","connection_request",
  "protocol"}],"dropped","connections":[{"id","client_port","protocol","tls",
  "opened_at_ms","closed_at_ms","requests"}]}, oldest first, the last 10000 kept;
  `connection` numbers connections from 1 in accept order and `connection_request` the
  request on it from 1: the ground truth of cold (1) and warm (2+) requests.
  DELETE /__sim/requests forgets the requests and the closed connections. Without the
  flag both answer 404.

NETWORK (command line only)
  --tls          TLS with a key and a self-signed certificate made at start (rcgen; never
                 stored), for --tls-name NAME (repeatable; default 127.0.0.1 and
                 localhost). ALPN offers h2 and http/1.1 (--alpn both, the default), or
                 one of them (--alpn h2, --alpn http/1.1); a connection serves what ALPN
                 chose. Plain connections speak HTTP/1.1. A second stdout line gives
                 `ttft-sim certificate spki sha256 BASE64` for Chromium's
                 --ignore-certificate-errors-spki-list; --tls-cert-out FILE writes the
                 certificate (PEM; not the key) for clients that trust a file.
                 --tls-cert FILE --tls-key FILE serve a given certificate chain and key
                 (PEM) instead: several sims sharing one test certificate, or one the
                 browser already trusts.
  --close-after N  each connection takes N requests (preflights count, as at a gateway),
                 then closes: HTTP/1.1 answers the Nth with `Connection: close`, HTTP/2
                 sends GOAWAY and finishes its open streams.
  --delay-ms D   every byte waits D ms in each direction (a round trip costs 2·D, without
                 a throughput limit): the TLS handshake (1 round trip with TLS 1.3), a CORS
                 preflight, the request and the response all pay it. The kernel's TCP
                 handshake does not. The timing model's times stay "after the request
                 reached the server", so a client sees them D later, plus D for the reply.
  --link-jitter-ms J, --loss-percent P, --retransmit-ms R, --up-kbps K,
  --down-kbps K, --link-seed S   the rest of a real link, per segment of 1448 bytes and per direction:
                 up to J ms more at random; P % lost once and resent R ms later (default
                 200 + 2·D: Linux's least retransmission timeout and a round trip); a rate of
                 K kbit/s (segments queue behind each other); in order (a resend holds back
                 what follows). Draws are seeded (S plus the connection's number): a run
                 repeats. Not modelled: TCP's congestion window (slow start), reordering.

STATIC PAGE (--dist DIR)
  Files of DIR at / (index.html for directories) with Cross-Origin-Opener-Policy:
  same-origin and Cross-Origin-Embedder-Policy: require-corp (cross-origin isolation:
  fine-grained timers), MIME types incl. application/wasm, and Cache-Control: no-cache.
  Cross-Origin-Resource-Policy: cross-origin on HTML documents (so a cross-origin
  isolated host page may frame the widget; it should add allow="cross-origin-isolated"
  to its iframe), same-origin on every other file (only the page loads them).
  Precompressed files: a `.br` or `.gz` beside a text or wasm file (written by
  scripts/precompress.mjs after `trunk build`) is sent with Content-Encoding: br or gzip
  when Accept-Encoding accepts it (highest q; br on a tie; q=0 refuses) and it is not
  older than the file; those files carry Vary: Accept-Encoding.
  Content-Security-Policy (unless --no-csp) on index.html and on every non-HTML file
  (a worker's policy comes from its script's response); other HTML files (the example
  host page) get none:
    default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-...' (a hash of
    each inline script of that index.html, computed when it is served); style-src 'self';
    img-src 'self' data: blob:; connect-src 'self' http: https: (--csp-connect-src);
    worker-src 'self'; frame-ancestors 'self' http://127.0.0.1:* http://localhost:* https://127.0.0.1:* https://localhost:*
    (--csp-frame-ancestors); base-uri 'self'; form-action 'self'; object-src 'none'
  connect-src allows every http(s) endpoint because the page calls whatever endpoint its
  user types. `ttft-sim --print-csp --dist DIR [--csp-frame-ancestors ...]` prints the
  header for deployers. API routes keep working for the isolated page (CORS + CORP).

CONFIG FILE (--config FILE, TOML or .json)
  Keys = long flag names with `_` (port, slots, block_tokens, no_cache, cache_mode,
  jitter_ms, seed, require_key, no_cors, dist, accept_unversioned, fault, redirect_to,
  record_requests, no_tokenize, no_context_info, no_trace_headers, no_csp,
  csp_frame_ancestors, csp_connect_src); a [set] table applies fields to every profile;
  [profiles.NAME] tables change or add profiles. Precedence: built-ins < file < command
  line (--set) < model-name suffix.
"#;

#[cfg(test)]
mod tests {
    use super::HELP;
    use crate::fault::Fault;
    use crate::http::GROUND_TRUTH_HEADERS;
    use crate::profile::{Profiles, PROFILE_KEYS};

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
