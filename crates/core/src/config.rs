//! The page's configuration from its URL query (`?preset=…&model=…&lang=zh`), for links and
//! embedding iframes (docs/embedding.md). Pure parsing: the page reads its query, passes the
//! pairs here, and removes refused parameters from its address.
//!
//! A parameter that carries a secret ([`is_secret_param`]) is refused: URLs end up in
//! history, logs, referrers and shared links. Its value is never kept, only its name (to
//! explain the refusal).

use crate::lang::Lang;
use crate::protocol::ProtocolChoice;
use crate::request::secret::is_secret_param;

/// The longest value kept from a URL parameter, in characters (a prompt in a link).
pub const MAX_PARAM_CHARS: usize = 8_192;

/// The light/dark choice: `None` follows the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Light colours.
    Light,
    /// Dark colours.
    Dark,
}

impl Theme {
    /// From `light` / `dark` (anything else: follow the system).
    pub fn parse(value: &str) -> Option<Theme> {
        match value.trim().to_ascii_lowercase().as_str() {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The `data-theme` value.
    pub fn code(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// The fragment (after `#`) of a share link, up to its version: `share=v1.…` (the lab's
/// share-link codec writes and reads the rest).
pub const SHARE_FRAGMENT_PREFIX: &str = "share=v1.";

/// A fragment (after `#`, without it) with its secret parameters taken out: a fragment
/// written like a query (`#api_key=KEY&key=KEY`) is refused exactly like the query, since
/// it too stays in the address bar, in history and in every link made from the address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanFragment {
    /// The fragment without them (its other parts as they were, in order).
    pub kept: String,
    /// Names of the refused parameters (at most 64 characters each; values never kept).
    pub refused: Vec<String>,
}

/// Takes the secret parameters ([`is_secret_param`], names percent-decoded) out of
/// `fragment`; `None` when there is none (the fragment is left as it is).
pub fn clean_fragment(fragment: &str) -> Option<CleanFragment> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut kept: Vec<&str> = Vec::new();
    let mut refused = Vec::new();
    for part in fragment.split('&') {
        let name = part.split_once('=').map_or(part, |(name, _)| name);
        let name = percent_decoded(&name.replace('+', " "));
        if !name.is_empty() && is_secret_param(&name) {
            refused.push(name.chars().take(64).collect());
        } else {
            kept.push(part);
        }
    }
    (!refused.is_empty()).then(|| CleanFragment {
        kept: kept
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("&"),
        refused,
    })
}

/// `%XX` sequences decoded (invalid ones and invalid UTF-8 kept as they are).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|&b| (b as char).to_digit(16));
        match (bytes[index], hex(index + 1), hex(index + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                index += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// What the URL asked for. Every field is optional: an absent one leaves the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlConfig {
    /// `preset`: a preset id (applied before the fields below).
    pub preset: Option<String>,
    /// `base_url`.
    pub base_url: Option<String>,
    /// `protocol`: `auto`, `chat`, `anthropic` or `responses`.
    pub protocol: Option<ProtocolChoice>,
    /// `model`.
    pub model: Option<String>,
    /// `prompt`.
    pub prompt: Option<String>,
    /// `runs`: measured runs (checked by the form like typed input).
    pub runs: Option<String>,
    /// `experiment`: an experiment the experiments panel should open.
    pub experiment: Option<String>,
    /// `lang`: `en` or `zh`.
    pub lang: Option<Lang>,
    /// `theme`: `light`, `dark` (or `auto`).
    pub theme: Option<Theme>,
    /// `compact=1`: the small layout for iframes.
    pub compact: bool,
    /// `target_origin` (or `parent_origin`): the only origin messages are posted to.
    pub target_origin: Option<String>,
    /// `source`: an id the host chose, echoed in every message.
    pub source_id: Option<String>,
    /// `otlp_endpoint`: the OpenTelemetry Collector's OTLP/HTTP base URL (checked by
    /// `ttft_lab::otlp::OtlpEndpoint::parse`); export is off without it.
    pub otlp_endpoint: Option<String>,
    /// `otlp_headers`: extra headers for the collector, `name=value,name2=value2` (checked by
    /// `ttft_lab::otlp::OtlpHeaders::parse`; never the model key).
    pub otlp_headers: Option<String>,
    /// `otlp_prompt=1`: the embedder opts in to sending the prompt text on spans.
    pub otlp_prompt: bool,
    /// `otlp_service_name`: `service.name` of the exported telemetry (default `ttft-meter`).
    pub otlp_service_name: Option<String>,
    /// `otlp_provider`: `gen_ai.provider.name` to send instead of the derived one.
    pub otlp_provider: Option<String>,
    /// `traceparent=1`: send a W3C `traceparent` header on the model request.
    pub traceparent: bool,
    /// `probe=N`: run N runs on load (embedders' probe mode; checked by
    /// [`crate::probe::parse_probe_runs`]).
    pub probe: Option<String>,
    /// `slo`: thresholds in the text form of `ttft_lab::slo::SloSet::parse`.
    pub slo: Option<String>,
    /// Names of refused secret parameters (their values are dropped at once).
    pub refused_keys: Vec<String>,
}

impl UrlConfig {
    /// Whether the address asks for something only the lab does: an experiment, the fleet
    /// options (OTLP export, trace context, SLOs, probe mode), or a share link in its
    /// `fragment` (any version of one).
    pub fn needs_lab(&self, fragment: &str) -> bool {
        self.experiment.is_some()
            || self.otlp_endpoint.is_some()
            || self.traceparent
            || self.probe.is_some()
            || self.slo.is_some()
            || fragment.contains(SHARE_FRAGMENT_PREFIX.trim_end_matches("v1."))
    }

    /// Reads `(name, value)` pairs. A secret parameter's value is never kept.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> UrlConfig {
        let mut config = UrlConfig::default();
        for (name, value) in pairs {
            let text = || {
                Some(value.chars().take(MAX_PARAM_CHARS).collect::<String>())
                    .filter(|value| !value.trim().is_empty())
            };
            match name {
                "preset" => config.preset = text(),
                "base_url" => config.base_url = text(),
                "protocol" => config.protocol = Some(ProtocolChoice::from_code(value)),
                "model" => config.model = text(),
                "prompt" => config.prompt = text(),
                "runs" => config.runs = text(),
                "experiment" => config.experiment = text(),
                "lang" => config.lang = Lang::from_code(value),
                "theme" => config.theme = Theme::parse(value),
                "compact" => config.compact = is_on(value),
                "target_origin" | "parent_origin" => config.target_origin = exact_origin(value),
                "source" => config.source_id = text(),
                "otlp_endpoint" => config.otlp_endpoint = text(),
                "otlp_headers" => config.otlp_headers = text(),
                "otlp_prompt" => config.otlp_prompt = is_on(value),
                "otlp_service_name" => config.otlp_service_name = text(),
                "otlp_provider" => config.otlp_provider = text(),
                "traceparent" => config.traceparent = is_on(value),
                "probe" => config.probe = text(),
                "slo" => config.slo = text(),
                _ if is_secret_param(name) => {
                    config.refused_keys.push(name.chars().take(64).collect())
                }
                _ => {}
            }
        }
        config
    }
}

/// Whether a switch parameter is on: `1`, `true`, `yes`, or present without a value.
fn is_on(value: &str) -> bool {
    matches!(value.trim(), "1" | "true" | "yes" | "")
}

/// `value` when it is exactly an origin, `scheme://host[:port]` with an http or https
/// scheme and nothing after (a trailing `/` is allowed), lower-cased; else `None`.
/// `*`, `null`, paths, credentials and other schemes are refused.
pub fn exact_origin(value: &str) -> Option<String> {
    let trimmed = value.trim();
    let without_slash = trimmed.strip_suffix('/').unwrap_or(trimmed);
    let (scheme, rest) = without_slash.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority_ok = !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    if !authority_ok {
        return None;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || rest.starts_with('[') => {
            if host.is_empty() || port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()) {
                // An IPv6 literal without a port: `[::1]`.
                if rest.starts_with('[') && rest.ends_with(']') {
                    (rest, None)
                } else {
                    return None;
                }
            } else {
                (host, Some(port))
            }
        }
        _ => (rest, None),
    };
    if host.is_empty() || host.starts_with('.') || host.ends_with('.') {
        return None;
    }
    let default_port = if scheme == "https" { "443" } else { "80" };
    let host = host.to_ascii_lowercase();
    Some(match port {
        Some(port) if port != default_port => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lab_features_in_the_address_need_the_lab() {
        let config = |query: &str| {
            UrlConfig::from_pairs(query.split('&').filter_map(|pair| pair.split_once('=')))
        };
        assert!(!config("base_url=http://127.0.0.1:8000/v1&model=m&runs=3").needs_lab(""));
        for query in [
            "experiment=prompt_length",
            "otlp_endpoint=http://127.0.0.1:4318",
            "traceparent=1",
            "probe=3",
            "slo=ttfa_ms:p95<800",
        ] {
            assert!(config(query).needs_lab(""), "{query}");
        }
        assert!(UrlConfig::default().needs_lab("#share=v1.abc"));
        assert!(UrlConfig::default().needs_lab("#share=v2.abc"));
        assert!(!UrlConfig::default().needs_lab("#section"));
    }
    use crate::protocol::Protocol;

    #[test]
    fn secret_parameters_are_taken_out_of_the_fragment() {
        let cleaned = clean_fragment("#api_key=sk-secret-1&key=sk-secret-2").unwrap();
        assert_eq!(cleaned.kept, "");
        assert_eq!(cleaned.refused, ["api_key", "key"]);
        let cleaned = clean_fragment("share=v1.abc&api%5Fkey=sk-x&access_token=t&lang=zh").unwrap();
        assert_eq!(cleaned.kept, "share=v1.abc&lang=zh");
        assert_eq!(cleaned.refused, ["api_key", "access_token"]);
        assert!(!format!("{cleaned:?}").contains("sk-"));
        // Nothing to take out: the fragment stays as it is.
        for fragment in ["", "#", "#answer-pane", "share=v1.abc", "#max_tokens=5"] {
            assert_eq!(clean_fragment(fragment), None, "{fragment}");
        }
    }

    #[test]
    fn parameters_are_read_and_secrets_refused_without_keeping_their_value() {
        let config = UrlConfig::from_pairs([
            ("model", "sim-fast@prefill_ms=200"),
            ("api_key", "sk-secret-1"),
            ("openai_key", "sk-secret-2"),
            ("subscription-key", "sk-secret-3"),
            ("runs", "3"),
            ("lang", "zh"),
            ("theme", "dark"),
            ("compact", "1"),
            ("protocol", "anthropic"),
            ("experiment", "prompt_length"),
            ("target_origin", "https://docs.example.com"),
            ("max_tokens", "64"),
        ]);
        assert_eq!(config.model.as_deref(), Some("sim-fast@prefill_ms=200"));
        assert_eq!(config.runs.as_deref(), Some("3"));
        assert_eq!(config.lang, Some(Lang::Zh));
        assert_eq!(config.theme, Some(Theme::Dark));
        assert!(config.compact);
        assert_eq!(
            config.protocol,
            Some(ProtocolChoice::Fixed(Protocol::AnthropicMessages))
        );
        assert_eq!(config.experiment.as_deref(), Some("prompt_length"));
        assert_eq!(
            config.target_origin.as_deref(),
            Some("https://docs.example.com")
        );
        assert_eq!(
            config.refused_keys,
            vec!["api_key", "openai_key", "subscription-key"]
        );
        assert!(!format!("{config:?}").contains("sk-secret"));
    }

    #[test]
    fn only_an_exact_origin_is_a_target() {
        for (value, expected) in [
            (
                "https://docs.example.com/",
                Some("https://docs.example.com"),
            ),
            ("HTTPS://Docs.Example.com", Some("https://docs.example.com")),
            ("http://127.0.0.1:8080", Some("http://127.0.0.1:8080")),
            ("https://example.com:443", Some("https://example.com")),
            ("http://[::1]:8080", Some("http://[::1]:8080")),
            ("https://docs.example.com/page", None),
            ("https://user:pw@docs.example.com", None),
            ("https://docs.example.com?x=1", None),
            ("*", None),
            ("null", None),
            ("javascript:alert(1)", None),
            ("ftp://example.com", None),
            ("https://", None),
            ("http://host:", None),
        ] {
            assert_eq!(exact_origin(value).as_deref(), expected, "{value}");
        }
    }

    #[test]
    fn fleet_parameters_are_read() {
        let config = UrlConfig::from_pairs([
            ("otlp_endpoint", "http://127.0.0.1:4318"),
            ("otlp_headers", "x-collector-token=abc"),
            ("otlp_prompt", "1"),
            ("otlp_service_name", "docs-site"),
            ("otlp_provider", "vllm"),
            ("traceparent", "true"),
            ("probe", "5"),
            ("slo", "ttfa_ms<=800,goodput>=95%"),
        ]);
        assert_eq!(
            config.otlp_endpoint.as_deref(),
            Some("http://127.0.0.1:4318")
        );
        assert_eq!(
            config.otlp_headers.as_deref(),
            Some("x-collector-token=abc")
        );
        assert!(config.otlp_prompt && config.traceparent);
        assert_eq!(config.otlp_service_name.as_deref(), Some("docs-site"));
        assert_eq!(config.otlp_provider.as_deref(), Some("vllm"));
        assert_eq!(config.probe.as_deref(), Some("5"));
        assert_eq!(config.slo.as_deref(), Some("ttfa_ms<=800,goodput>=95%"));
        assert!(config.refused_keys.is_empty());
        let off = UrlConfig::from_pairs([("otlp_prompt", "0"), ("traceparent", "no")]);
        assert!(!off.otlp_prompt && !off.traceparent);
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(MAX_PARAM_CHARS + 100);
        let config = UrlConfig::from_pairs([("prompt", long.as_str())]);
        assert_eq!(
            config.prompt.map(|p| p.chars().count()),
            Some(MAX_PARAM_CHARS)
        );
    }
}
