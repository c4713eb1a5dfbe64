//! The server's own account of a request's time, where the provider gives one: in the stream
//! (llama.cpp's `timings`, Groq's `x_groq.usage`, SambaNova's `usage.time_to_first_token`,
//! vLLM's `metrics`, NVIDIA NIM's `stats`, Cerebras' `time_info`, Fireworks' `perf_metrics`,
//! LocalAI's `usage.timing_*`) or in response headers (`Server-Timing`, OpenAI's
//! `openai-processing-ms`, LiteLLM's `x-litellm-overhead-duration-ms`, Fireworks'
//! `fireworks-server-time-to-first-token`, text-generation-inference's `x-queue-time`).
//! docs/stream-formats.md §12 has the shapes and their sources.
//!
//! Every figure is normalized to milliseconds and bounded: a value that is not a finite,
//! non-negative number below [`MAX_ACCOUNT_MS`] (or [`MAX_ACCOUNT_TOKENS`] for counts) is
//! ignored, as is a header longer than [`MAX_HEADER_BYTES`]. What the figures are worth is
//! for the reader to judge against what the browser saw (ttft-core's breakdown does).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest time a server may report, ms (one day): anything above is not a latency.
pub const MAX_ACCOUNT_MS: f64 = 86_400_000.0;

/// The largest token count a server may report.
pub const MAX_ACCOUNT_TOKENS: u64 = 1_000_000_000;

/// The longest header value read for an account, bytes; a longer one is ignored whole.
pub const MAX_HEADER_BYTES: usize = 4096;

/// The response headers that carry an account, lower case: what a transport reads and hands
/// to [`ServerAccount::from_headers`]. A browser reads them only when the server lists them
/// in `Access-Control-Expose-Headers` (or the page is on the same origin).
/// ttft-relay's headers (`x-ttft-relay`, `x-ttft-relay-error`: docs/relay.md) come with them,
/// since the relay's own account is a `Server-Timing` header too ([`super::RelayAccount`]).
pub const ACCOUNT_HEADERS: [&str; 12] = [
    "server-timing",
    "openai-processing-ms",
    "x-litellm-overhead-duration-ms",
    "x-queue-time",
    "x-total-time",
    "x-prompt-tokens",
    "fireworks-server-time-to-first-token",
    "fireworks-server-processing-time",
    "fireworks-prompt-tokens",
    "fireworks-cached-prompt-tokens",
    "x-ttft-relay",
    "x-ttft-relay-error",
];

/// Who gave (part of) an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountSource {
    /// llama.cpp's server: `timings` on the final chunk.
    Llamacpp,
    /// Groq: `x_groq.usage` (seconds).
    Groq,
    /// SambaNova Cloud: `usage.time_to_first_token`, `usage.total_latency` (seconds).
    Sambanova,
    /// A `Server-Timing` header (or Resource Timing's `serverTiming`).
    ServerTiming,
    /// OpenAI's `openai-processing-ms` header.
    OpenaiProcessing,
    /// LiteLLM's proxy: `x-litellm-overhead-duration-ms`.
    Litellm,
    /// Hugging Face text-generation-inference: `x-queue-time`, `x-total-time`,
    /// `x-prompt-tokens` (on answers that are not streamed).
    Tgi,
    /// vLLM with `--enable-per-request-metrics`: `metrics` on the final usage chunk (ms).
    Vllm,
    /// NVIDIA NIM with `NIM_PER_REQ_METRICS_ENABLE=1`: `stats` (ms).
    Nim,
    /// Cerebras: `time_info` on the final chunk (seconds).
    Cerebras,
    /// Fireworks: `perf_metrics` on the final chunk with `perf_metrics_in_response`, and
    /// `fireworks-*` headers (seconds).
    Fireworks,
    /// LocalAI with the request header `Extra-Usage`: `usage.timing_prompt_processing`,
    /// `usage.timing_token_generation` (ms).
    Localai,
    /// A New API (One API) gateway's log: `other.frt`, its time to the upstream's first
    /// event (ms), read from its log endpoint after the run.
    NewApi,
}

impl AccountSource {
    /// The serialized code.
    pub fn code(self) -> &'static str {
        match self {
            AccountSource::Llamacpp => "llamacpp",
            AccountSource::Groq => "groq",
            AccountSource::Sambanova => "sambanova",
            AccountSource::ServerTiming => "server_timing",
            AccountSource::OpenaiProcessing => "openai_processing",
            AccountSource::Litellm => "litellm",
            AccountSource::Tgi => "tgi",
            AccountSource::Vllm => "vllm",
            AccountSource::Nim => "nim",
            AccountSource::Cerebras => "cerebras",
            AccountSource::Fireworks => "fireworks",
            AccountSource::Localai => "localai",
            AccountSource::NewApi => "new_api",
        }
    }
}

/// What a server (or a gateway in front of it) said of its own time for one request, ms.
/// `None`: not said.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerAccount {
    /// Who said it, in the order heard (each once).
    pub sources: Vec<AccountSource>,
    /// The gateway's own time (its overhead, not the upstream's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_ms: Option<f64>,
    /// The request's upload as the server saw it: from the request's first bytes to its
    /// last (a `Server-Timing` `upload` metric, as ttft-sim sends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_ms: Option<f64>,
    /// Time queued before the server began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ms: Option<f64>,
    /// Prompt processing (prefill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_ms: Option<f64>,
    /// All prompt tokens, cached ones included (llama.cpp: `prompt_n + cache_n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens the server took from its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// The server's own time to first token: SambaNova's `time_to_first_token`; on a stream,
    /// a time to the response's start (Anthropic's `Server-Timing: proxy`,
    /// `openai-processing-ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    /// Generating the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_ms: Option<f64>,
    /// The whole request as the server counts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<f64>,
}

/// A bounded time: finite, non-negative, below [`MAX_ACCOUNT_MS`].
pub(super) fn bounded_ms(value: f64) -> Option<f64> {
    (value.is_finite() && (0.0..MAX_ACCOUNT_MS).contains(&value)).then_some(value)
}

fn ms_at(object: &Value, key: &str, scale: f64) -> Option<f64> {
    object
        .get(key)
        .and_then(Value::as_f64)
        .and_then(|value| bounded_ms(value * scale))
}

/// A number or a numeric string (Fireworks documents numbers; some of its clients read
/// strings), as [`ms_at`] reads it.
fn number_or_text_ms_at(object: &Value, key: &str, scale: f64) -> Option<f64> {
    match object.get(key)? {
        Value::String(text) => header_number(text).and_then(|value| bounded_ms(value * scale)),
        _ => ms_at(object, key, scale),
    }
}

/// A decimal number as a header writes it. Read by serde_json's number parser (which the page
/// carries anyway) rather than `str::parse::<f64>`, whose tables cost the first load about
/// 30 KB of wasm. JSON's number syntax is what servers write (`12`, `12.5`, `1.2e3`); `NaN`,
/// `inf`, `+5` and `12ms` are refused.
pub(super) fn header_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() || text.len() > 32 {
        return None;
    }
    serde_json::from_str::<f64>(text).ok()
}

/// A token count as a header writes it.
fn header_count(text: &str) -> Option<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|count| *count <= MAX_ACCOUNT_TOKENS)
}

fn tokens_at(object: &Value, key: &str) -> Option<u64> {
    object
        .get(key)
        .and_then(Value::as_u64)
        .filter(|count| *count <= MAX_ACCOUNT_TOKENS)
}

impl ServerAccount {
    /// Whether nothing was said.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// Takes what `other` says: its figures replace this one's where it has them.
    pub fn merge(&mut self, other: ServerAccount) {
        for source in other.sources {
            if !self.sources.contains(&source) {
                self.sources.push(source);
            }
        }
        let take = |mine: &mut Option<f64>, theirs: Option<f64>| {
            if theirs.is_some() {
                *mine = theirs;
            }
        };
        take(&mut self.upload_ms, other.upload_ms);
        take(&mut self.gateway_ms, other.gateway_ms);
        take(&mut self.queue_ms, other.queue_ms);
        take(&mut self.prompt_ms, other.prompt_ms);
        take(&mut self.ttft_ms, other.ttft_ms);
        take(&mut self.completion_ms, other.completion_ms);
        take(&mut self.total_ms, other.total_ms);
        if other.prompt_tokens.is_some() {
            self.prompt_tokens = other.prompt_tokens;
        }
        if other.cached_tokens.is_some() {
            self.cached_tokens = other.cached_tokens;
        }
    }

    /// An account with one source, when it says anything.
    fn said(mut self, source: AccountSource) -> Option<ServerAccount> {
        let figures = [
            self.upload_ms,
            self.gateway_ms,
            self.queue_ms,
            self.prompt_ms,
            self.ttft_ms,
            self.completion_ms,
            self.total_ms,
        ];
        let any = figures.iter().any(Option::is_some)
            || self.prompt_tokens.is_some()
            || self.cached_tokens.is_some();
        any.then(|| {
            self.sources = vec![source];
            self
        })
    }

    /// llama.cpp's `timings` object (ms; `prompt_n` tokens evaluated, `cache_n` reused).
    pub fn from_llamacpp_timings(timings: &Value) -> Option<ServerAccount> {
        let evaluated = tokens_at(timings, "prompt_n");
        let cached = tokens_at(timings, "cache_n");
        ServerAccount {
            prompt_ms: ms_at(timings, "prompt_ms", 1.0),
            prompt_tokens: evaluated
                .map(|evaluated| evaluated + cached.unwrap_or(0))
                .filter(|count| *count <= MAX_ACCOUNT_TOKENS),
            cached_tokens: tokens_at(timings, "cache_n"),
            completion_ms: ms_at(timings, "predicted_ms", 1.0),
            ..ServerAccount::default()
        }
        .said(AccountSource::Llamacpp)
    }

    /// Groq's `x_groq` object: its `usage` has `queue_time`, `prompt_time`,
    /// `completion_time` and `total_time` in seconds.
    pub fn from_groq(x_groq: &Value) -> Option<ServerAccount> {
        let usage = x_groq.get("usage")?;
        ServerAccount {
            queue_ms: ms_at(usage, "queue_time", 1000.0),
            prompt_ms: ms_at(usage, "prompt_time", 1000.0),
            completion_ms: ms_at(usage, "completion_time", 1000.0),
            total_ms: ms_at(usage, "total_time", 1000.0),
            prompt_tokens: tokens_at(usage, "prompt_tokens"),
            ..ServerAccount::default()
        }
        .said(AccountSource::Groq)
    }

    /// vLLM's `metrics` (`--enable-per-request-metrics`, ms): `queue_time_ms` (queued →
    /// first scheduled), `time_to_first_token_ms` (first scheduled → first token: its prompt
    /// processing, the queue excluded), `generation_time_ms` (first → last token).
    pub fn from_vllm_metrics(metrics: &Value) -> Option<ServerAccount> {
        ServerAccount {
            queue_ms: ms_at(metrics, "queue_time_ms", 1.0),
            prompt_ms: ms_at(metrics, "time_to_first_token_ms", 1.0),
            completion_ms: ms_at(metrics, "generation_time_ms", 1.0),
            ..ServerAccount::default()
        }
        .said(AccountSource::Vllm)
    }

    /// NVIDIA NIM's `stats` (`NIM_PER_REQ_METRICS_ENABLE=1`, ms): `time_in_queue_in_ms`
    /// (vLLM backends only), `response_tokens.time_to_first_token_in_ms` ("from processing
    /// start": after the queue, as vLLM counts it underneath), `generation_time_in_ms` (the
    /// whole processing), `llm_input_token_length`.
    pub fn from_nim_stats(stats: &Value) -> Option<ServerAccount> {
        let response = stats.get("response_tokens").unwrap_or(&Value::Null);
        ServerAccount {
            queue_ms: ms_at(stats, "time_in_queue_in_ms", 1.0),
            prompt_ms: ms_at(response, "time_to_first_token_in_ms", 1.0),
            total_ms: ms_at(stats, "generation_time_in_ms", 1.0),
            prompt_tokens: tokens_at(stats, "llm_input_token_length"),
            ..ServerAccount::default()
        }
        .said(AccountSource::Nim)
    }

    /// Cerebras' `time_info` (seconds): `queue_time`, `prompt_time`, `completion_time`,
    /// `total_time` (its `created` is a date, not a duration).
    pub fn from_cerebras_time_info(time_info: &Value) -> Option<ServerAccount> {
        ServerAccount {
            queue_ms: ms_at(time_info, "queue_time", 1000.0),
            prompt_ms: ms_at(time_info, "prompt_time", 1000.0),
            completion_ms: ms_at(time_info, "completion_time", 1000.0),
            total_ms: ms_at(time_info, "total_time", 1000.0),
            ..ServerAccount::default()
        }
        .said(AccountSource::Cerebras)
    }

    /// Fireworks' `perf_metrics` (seconds; hyphenated keys): `server-time-to-first-token`
    /// (from the request's start: its queue included), `server-processing-time` (the whole
    /// request), `prompt-tokens`, `cached-prompt-tokens`, and on dedicated deployments
    /// `prefill-queue-duration` and `prefill-duration`.
    pub fn from_fireworks_perf_metrics(perf: &Value) -> Option<ServerAccount> {
        ServerAccount {
            queue_ms: number_or_text_ms_at(perf, "prefill-queue-duration", 1000.0),
            prompt_ms: number_or_text_ms_at(perf, "prefill-duration", 1000.0),
            ttft_ms: number_or_text_ms_at(perf, "server-time-to-first-token", 1000.0),
            total_ms: number_or_text_ms_at(perf, "server-processing-time", 1000.0),
            prompt_tokens: tokens_at(perf, "prompt-tokens"),
            cached_tokens: tokens_at(perf, "cached-prompt-tokens"),
            ..ServerAccount::default()
        }
        .said(AccountSource::Fireworks)
    }

    /// A New API (One API) gateway's log entry for the request: `other.frt` is the gateway's
    /// time from the request's start to the upstream's first event (ms), the upstream's
    /// network, queue and prompt processing together; `other` is an object in recent versions
    /// and a JSON string in older ones. Only a streamed entry counts (`is_stream`; older
    /// versions write `frt: -1000` for the others).
    pub fn from_new_api_log(entry: &Value) -> Option<ServerAccount> {
        if entry.get("is_stream").and_then(Value::as_bool) != Some(true) {
            return None;
        }
        let other = match entry.get("other")? {
            Value::String(text) if text.len() <= MAX_HEADER_BYTES => {
                serde_json::from_str::<Value>(text).ok()?
            }
            Value::Object(_) => entry.get("other")?.clone(),
            _ => return None,
        };
        ServerAccount {
            ttft_ms: ms_at(&other, "frt", 1.0).filter(|ms| *ms > 0.0),
            prompt_tokens: tokens_at(entry, "prompt_tokens"),
            ..ServerAccount::default()
        }
        .said(AccountSource::NewApi)
    }

    /// The timing fields some servers put in Chat `usage`: SambaNova's
    /// `time_to_first_token` and `total_latency` (seconds), LocalAI's
    /// `timing_prompt_processing` and `timing_token_generation` (ms, with the request
    /// header `Extra-Usage`), and Groq's `queue_time`, `prompt_time`, `completion_time`,
    /// `total_time` where it sends them there (seconds).
    pub fn from_chat_usage(usage: &Value) -> Option<ServerAccount> {
        if let Some(account) = (ServerAccount {
            prompt_ms: ms_at(usage, "timing_prompt_processing", 1.0),
            completion_ms: ms_at(usage, "timing_token_generation", 1.0),
            prompt_tokens: tokens_at(usage, "prompt_tokens"),
            ..ServerAccount::default()
        })
        .said(AccountSource::Localai)
        .filter(|account| account.prompt_ms.is_some() || account.completion_ms.is_some())
        {
            return Some(account);
        }
        if let Some(account) = (ServerAccount {
            ttft_ms: ms_at(usage, "time_to_first_token", 1000.0),
            total_ms: ms_at(usage, "total_latency", 1000.0),
            ..ServerAccount::default()
        })
        .said(AccountSource::Sambanova)
        .map(|account| ServerAccount {
            prompt_tokens: tokens_at(usage, "prompt_tokens"),
            ..account
        }) {
            return Some(account);
        }
        ServerAccount {
            queue_ms: ms_at(usage, "queue_time", 1000.0),
            prompt_ms: ms_at(usage, "prompt_time", 1000.0),
            completion_ms: ms_at(usage, "completion_time", 1000.0),
            total_ms: ms_at(usage, "total_time", 1000.0),
            ..ServerAccount::default()
        }
        .said(AccountSource::Groq)
        .map(|account| ServerAccount {
            prompt_tokens: tokens_at(usage, "prompt_tokens"),
            ..account
        })
    }

    /// The accounts of response headers (`name`, `value` pairs; names in any case): a
    /// `Server-Timing` header, `openai-processing-ms`, LiteLLM's
    /// `x-litellm-overhead-duration-ms`, TGI's `x-queue-time`, `x-total-time` and
    /// `x-prompt-tokens`. `streamed`: the answer is a stream, so a server's whole-request
    /// time in its headers is its time until the response began (its time to first token,
    /// near enough), not the request's.
    pub fn from_headers<'h>(
        headers: impl IntoIterator<Item = (&'h str, &'h str)>,
        streamed: bool,
    ) -> Option<ServerAccount> {
        let mut account = ServerAccount::default();
        for (name, value) in headers {
            if value.len() > MAX_HEADER_BYTES {
                continue;
            }
            let number = || header_number(value).and_then(bounded_ms);
            let whole = |ms: Option<f64>| {
                if streamed {
                    ServerAccount {
                        ttft_ms: ms,
                        ..ServerAccount::default()
                    }
                } else {
                    ServerAccount {
                        total_ms: ms,
                        ..ServerAccount::default()
                    }
                }
            };
            let name = name.to_ascii_lowercase();
            let found = match name.as_str() {
                "server-timing" => ServerAccount::from_server_timing(value, streamed),
                "openai-processing-ms" => whole(number()).said(AccountSource::OpenaiProcessing),
                "x-litellm-overhead-duration-ms" => ServerAccount {
                    gateway_ms: number(),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Litellm),
                "x-queue-time" => ServerAccount {
                    queue_ms: number(),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Tgi),
                "x-total-time" => ServerAccount {
                    total_ms: number(),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Tgi),
                "fireworks-server-time-to-first-token" => ServerAccount {
                    ttft_ms: header_number(value).and_then(|s| bounded_ms(s * 1000.0)),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Fireworks),
                "fireworks-server-processing-time" => ServerAccount {
                    total_ms: header_number(value).and_then(|s| bounded_ms(s * 1000.0)),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Fireworks),
                "fireworks-prompt-tokens" => ServerAccount {
                    prompt_tokens: header_count(value),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Fireworks),
                "fireworks-cached-prompt-tokens" => ServerAccount {
                    cached_tokens: header_count(value),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Fireworks),
                "x-prompt-tokens" => ServerAccount {
                    prompt_tokens: header_count(value),
                    ..ServerAccount::default()
                }
                .said(AccountSource::Tgi),
                _ => None,
            };
            if let Some(found) = found {
                account.merge(found);
            }
        }
        (!account.is_empty()).then_some(account)
    }

    /// A `Server-Timing` value (W3C Server Timing: `name;dur=123.4;desc="…"`, comma
    /// separated). The names read: `upload`/`request_body` (the request's upload as the
    /// server saw it), `queue`/`queue_time`/`queued` (queue),
    /// `prompt`/`prefill`/`prompt_eval`/`prompt_processing` (prompt), `gateway`/`overhead`
    /// (a gateway's own time), `ttft`/`time_to_first_token`, `total`, and Anthropic's
    /// `proxy` (its upstream's time: until the response began on a stream, `streamed`,
    /// else the whole request). Others are ignored.
    pub fn from_server_timing(value: &str, streamed: bool) -> Option<ServerAccount> {
        let mut account = ServerAccount::default();
        for metric in value.split(',') {
            let mut params = metric.split(';');
            let name = params
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            let duration = params
                .filter_map(|param| param.split_once('='))
                .find(|(key, _)| key.trim().eq_ignore_ascii_case("dur"))
                .and_then(|(_, value)| header_number(value.trim().trim_matches('"')))
                .and_then(bounded_ms);
            let Some(duration) = duration else { continue };
            let slot = match name.as_str() {
                "upload" | "request_body" => &mut account.upload_ms,
                "queue" | "queue_time" | "queued" => &mut account.queue_ms,
                "prompt" | "prefill" | "prompt_eval" | "prompt_processing" => {
                    &mut account.prompt_ms
                }
                "gateway" | "overhead" => &mut account.gateway_ms,
                "ttft" | "time_to_first_token" => &mut account.ttft_ms,
                "proxy" if streamed => &mut account.ttft_ms,
                "proxy" => &mut account.total_ms,
                "total" => &mut account.total_ms,
                _ => continue,
            };
            *slot = Some(duration);
        }
        account.said(AccountSource::ServerTiming)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn llamacpp_timings() {
        let account = ServerAccount::from_llamacpp_timings(&json!({
            "cache_n": 12, "prompt_n": 230, "prompt_ms": 412.5, "prompt_per_token_ms": 1.79,
            "predicted_n": 16, "predicted_ms": 95.1
        }))
        .unwrap();
        assert_eq!(account.sources, vec![AccountSource::Llamacpp]);
        assert_eq!(account.prompt_ms, Some(412.5));
        assert_eq!(account.prompt_tokens, Some(242));
        assert_eq!(account.cached_tokens, Some(12));
        assert_eq!(account.completion_ms, Some(95.1));
        assert_eq!(account.queue_ms, None);
    }

    #[test]
    fn groq_seconds_become_ms() {
        let account = ServerAccount::from_groq(&json!({"id": "req_1", "usage": {
            "queue_time": 0.0125, "prompt_tokens": 20, "prompt_time": 0.0031,
            "completion_tokens": 9, "completion_time": 0.0075, "total_time": 0.0106
        }}))
        .unwrap();
        assert!((account.queue_ms.unwrap() - 12.5).abs() < 1e-9);
        assert!((account.prompt_ms.unwrap() - 3.1).abs() < 1e-9);
        assert!((account.total_ms.unwrap() - 10.6).abs() < 1e-9);
        assert_eq!(ServerAccount::from_groq(&json!({"id": "x"})), None);
    }

    #[test]
    fn sambanova_usage() {
        let account = ServerAccount::from_chat_usage(&json!({
            "completion_tokens": 5, "time_to_first_token": 0.25, "total_latency": 0.5
        }))
        .unwrap();
        assert_eq!(account.sources, vec![AccountSource::Sambanova]);
        assert_eq!(account.ttft_ms, Some(250.0));
        assert_eq!(account.total_ms, Some(500.0));
        assert_eq!(
            ServerAccount::from_chat_usage(&json!({"prompt_tokens": 5})),
            None
        );
    }

    #[test]
    fn headers_and_server_timing() {
        let account = ServerAccount::from_headers(
            [
                (
                    "Server-Timing",
                    "queue;dur=150, prefill;desc=\"prompt\";dur=300.5, cdn-cache;desc=HIT",
                ),
                ("X-LiteLLM-Overhead-Duration-Ms", "21.7"),
                ("openai-processing-ms", "640"),
                ("content-type", "text/event-stream"),
            ],
            false,
        )
        .unwrap();
        assert_eq!(account.queue_ms, Some(150.0));
        assert_eq!(account.prompt_ms, Some(300.5));
        assert_eq!(account.gateway_ms, Some(21.7));
        assert_eq!(account.total_ms, Some(640.0));
        assert_eq!(
            account.sources,
            vec![
                AccountSource::ServerTiming,
                AccountSource::Litellm,
                AccountSource::OpenaiProcessing
            ]
        );
    }

    #[test]
    fn hostile_values_are_ignored() {
        for value in ["-5", "NaN", "inf", "1e300", "", "12ms"] {
            assert_eq!(
                ServerAccount::from_headers([("openai-processing-ms", value)], true),
                None,
                "{value}"
            );
        }
        let long = format!("queue;dur=1,{}", "x".repeat(MAX_HEADER_BYTES));
        assert_eq!(
            ServerAccount::from_headers([("server-timing", long.as_str())], true),
            None
        );
        assert_eq!(
            ServerAccount::from_llamacpp_timings(&json!({"prompt_ms": -1, "prompt_n": 1e20})),
            None
        );
        assert_eq!(
            ServerAccount::from_server_timing("queue;dur=abc", true),
            None
        );
        // The new accounts: negative, huge or non-numeric figures say nothing.
        assert_eq!(
            ServerAccount::from_vllm_metrics(
                &json!({"queue_time_ms": -1, "time_to_first_token_ms": "85"})
            ),
            None
        );
        assert_eq!(
            ServerAccount::from_cerebras_time_info(
                &json!({"queue_time": 1e300, "created": 1761231233.4})
            ),
            None
        );
        assert_eq!(
            ServerAccount::from_fireworks_perf_metrics(
                &json!({"server-time-to-first-token": "soon"})
            ),
            None
        );
        assert_eq!(
            ServerAccount::from_nim_stats(
                &json!({"type": "NIM LLM Model Stats", "response_tokens": 3})
            ),
            None
        );
        assert_eq!(
            ServerAccount::from_new_api_log(&json!({"is_stream": true, "other": "{not json"})),
            None
        );
        let long_other = format!("{{\"frt\":1,\"pad\":\"{}\"}}", "x".repeat(MAX_HEADER_BYTES));
        assert_eq!(
            ServerAccount::from_new_api_log(&json!({"is_stream": true, "other": long_other})),
            None
        );
        assert_eq!(
            ServerAccount::from_headers([("fireworks-server-time-to-first-token", "-0.1")], true),
            None
        );
    }

    #[test]
    fn fireworks_reads_numbers_or_numeric_text_in_seconds() {
        let account = ServerAccount::from_fireworks_perf_metrics(&json!({
            "server-time-to-first-token": "0.25",
            "server-processing-time": 0.5,
            "prefill-queue-duration": 0.01,
            "prefill-duration": 0.2,
        }))
        .unwrap();
        assert_eq!(account.ttft_ms, Some(250.0));
        assert_eq!(account.total_ms, Some(500.0));
        assert_eq!(account.queue_ms, Some(10.0));
        assert_eq!(account.prompt_ms, Some(200.0));
        let headers = ServerAccount::from_headers(
            [
                ("Fireworks-Server-Time-To-First-Token", "0.112"),
                ("fireworks-prompt-tokens", "18"),
            ],
            true,
        )
        .unwrap();
        assert_eq!(headers.sources, vec![AccountSource::Fireworks]);
        assert_eq!(headers.ttft_ms, Some(112.0));
        assert_eq!(headers.prompt_tokens, Some(18));
    }
}
