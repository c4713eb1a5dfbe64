//! Server configuration: defaults, the config file (`--config FILE`, TOML or JSON) and the
//! command line, in that order of precedence (later wins).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::cache::CacheMode;
use crate::fault::Fault;
use crate::network::{Alpn, NetworkOptions};
use crate::profile::{Profile, ProfileError, Profiles};

/// Default TCP port.
pub const DEFAULT_PORT: u16 = 8787;
/// Default number of server slots.
pub const DEFAULT_SLOTS: usize = 4;
/// Default prefix-cache block size, tokens.
pub const DEFAULT_BLOCK_TOKENS: usize = 64;
/// Default `frame-ancestors` of the page's CSP: the page itself and pages on loopback (the
/// sim only listens there, so no site on the internet may frame it).
pub const DEFAULT_FRAME_ANCESTORS: &str =
    "'self' http://127.0.0.1:* http://localhost:* https://127.0.0.1:* https://localhost:*";
/// Default `connect-src` of the page's CSP: the page must reach any endpoint its user types.
pub const DEFAULT_CONNECT_SRC: &str = "'self' http: https:";

/// The page's Content-Security-Policy settings (`--dist`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CspConfig {
    /// Send the policy at all.
    pub enabled: bool,
    /// `frame-ancestors` sources.
    pub frame_ancestors: String,
    /// `connect-src` sources.
    pub connect_src: String,
}

impl Default for CspConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            frame_ancestors: DEFAULT_FRAME_ANCESTORS.to_string(),
            connect_src: DEFAULT_CONNECT_SRC.to_string(),
        }
    }
}

/// Everything the server needs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Concurrent requests served; later ones queue (FIFO).
    pub slots: usize,
    /// Prefix-cache block size, tokens.
    pub block_tokens: usize,
    /// Which prefix cache (`blocks`, `last-prompt`, `off`).
    pub cache_mode: CacheMode,
    /// Uniform extra delay in `[0, jitter_ms)` added to prefill and to each ITL gap.
    pub jitter_ms: f64,
    /// Seed of the jitter generator.
    pub seed: u64,
    /// Required API key (in the dialect's header), if any.
    pub require_key: Option<String>,
    /// CORS headers on API responses.
    pub cors_enabled: bool,
    /// Serve this directory at `/`.
    pub dist: Option<PathBuf>,
    /// Also serve `/chat/completions`, `/messages`, `/responses`, `/models`.
    pub accept_unversioned: bool,
    /// A fault for every request that names none (`--fault`).
    pub fault: Option<Fault>,
    /// Target of the `redirect` fault (an origin or a full URL); `None`: the port after the
    /// server's own on 127.0.0.1.
    pub redirect_to: Option<String>,
    /// Remember every request and serve them at `/__sim/requests`.
    pub record_requests: bool,
    /// Serve `POST /tokenize` (llama.cpp and vLLM shapes).
    pub tokenize_enabled: bool,
    /// Expose context windows (`/props`, `max_model_len` and `meta` in `/v1/models`).
    pub context_info: bool,
    /// CORS preflights allow `traceparent` and `tracestate`.
    pub trace_headers_allowed: bool,
    /// API responses carry `Timing-Allow-Origin: *` (`--no-timing-allow-origin`: not).
    pub timing_allow_origin: bool,
    /// The page's Content-Security-Policy.
    pub csp: CspConfig,
    /// Model profiles.
    pub profiles: Profiles,
    /// TLS, closing connections, the delay line (command line only).
    pub network: NetworkOptions,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            slots: DEFAULT_SLOTS,
            block_tokens: DEFAULT_BLOCK_TOKENS,
            cache_mode: CacheMode::Blocks,
            jitter_ms: 0.0,
            seed: 0,
            require_key: None,
            cors_enabled: true,
            dist: None,
            accept_unversioned: false,
            fault: None,
            redirect_to: None,
            record_requests: false,
            tokenize_enabled: true,
            context_info: true,
            trace_headers_allowed: true,
            timing_allow_origin: true,
            csp: CspConfig::default(),
            profiles: Profiles::builtin(),
            network: NetworkOptions::default(),
        }
    }
}

/// The config file's contents. Keys are the long flag names with `_`; `set` applies to
/// every profile; `profiles.NAME` overrides a built-in profile or defines a new one
/// (starting from the defaults listed in `--help`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `--port`.
    pub port: Option<u16>,
    /// `--slots`.
    pub slots: Option<usize>,
    /// `--block-tokens`.
    pub block_tokens: Option<usize>,
    /// `--no-cache`.
    pub no_cache: Option<bool>,
    /// `--cache-mode`.
    pub cache_mode: Option<String>,
    /// `--jitter-ms`.
    pub jitter_ms: Option<f64>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--require-key`.
    pub require_key: Option<String>,
    /// `--no-cors`.
    pub no_cors: Option<bool>,
    /// `--dist`.
    pub dist: Option<PathBuf>,
    /// `--accept-unversioned`.
    pub accept_unversioned: Option<bool>,
    /// `--fault`.
    pub fault: Option<String>,
    /// `--redirect-to`.
    pub redirect_to: Option<String>,
    /// `--record-requests`.
    pub record_requests: Option<bool>,
    /// `--no-tokenize`.
    pub no_tokenize: Option<bool>,
    /// `--no-context-info`.
    pub no_context_info: Option<bool>,
    /// `--no-trace-headers`.
    pub no_trace_headers: Option<bool>,
    /// `--no-csp`.
    pub no_csp: Option<bool>,
    /// `--csp-frame-ancestors`.
    pub csp_frame_ancestors: Option<String>,
    /// `--csp-connect-src`.
    pub csp_connect_src: Option<String>,
    /// `--set` for all profiles.
    #[serde(default)]
    pub set: BTreeMap<String, serde_json::Value>,
    /// Per-profile fields.
    #[serde(default)]
    pub profiles: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

/// A config file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Could not read it.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not valid TOML.
    #[error("config file {path} is not valid TOML: {message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// Not valid JSON.
    #[error("config file {path} is not valid JSON: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A server option was refused.
    #[error("{0}")]
    Option(#[from] OptionError),
    /// A profile option was refused.
    #[error("{context}: {source}")]
    Profile {
        /// Where.
        context: String,
        /// What.
        source: ProfileError,
    },
}

/// A server-wide option whose value is not usable (from the file or the command line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// `cache_mode` names no cache.
    #[error("cache mode `{0}` is unknown; known modes: blocks, last-prompt, off")]
    CacheMode(String),
    /// `fault` names no fault.
    #[error("unknown fault `{0}`; known faults: {known}", known = Fault::names().collect::<Vec<_>>().join(", "))]
    Fault(String),
    /// `redirect_to` is not an http(s) URL.
    #[error("redirect target `{0}` is not an http:// or https:// URL")]
    RedirectTo(String),
    /// `alpn` names no offer.
    #[error("ALPN offer `{0}` is unknown; known offers: both (h2 and http/1.1), h2, http/1.1")]
    Alpn(String),
    /// `delay_ms` is negative or not a number.
    #[error("delay `{0}` ms is not a number of milliseconds from 0 to 10000")]
    DelayMs(String),
    /// A link time is negative or not a number.
    #[error("{0} `{1}` ms is not a number of milliseconds from 0 to 10000")]
    LinkMs(&'static str, String),
    /// `loss_percent` is out of range.
    #[error("loss `{0}` % is not a percentage from 0 to 50")]
    LossPercent(String),
    /// A rate is out of range.
    #[error("rate `{0}` kbit/s is not a rate from 8 to 10000000")]
    Kbps(String),
    /// `close_after` is 0.
    #[error("close after 0 requests would serve nothing; give 1 or more")]
    CloseAfterZero,
    /// A CSP source list would break the header (a `;`, a comma or a line break in it).
    #[error("CSP sources `{0}` may not contain `;`, `,` or line breaks")]
    CspSources(String),
}

/// Parses `--cache-mode`.
pub fn parse_cache_mode(value: &str) -> Result<CacheMode, OptionError> {
    CacheMode::parse(value).ok_or_else(|| OptionError::CacheMode(value.to_string()))
}

/// Parses `--fault`.
pub fn parse_fault(value: &str) -> Result<Fault, OptionError> {
    Fault::parse(value).ok_or_else(|| OptionError::Fault(value.to_string()))
}

/// Parses `--alpn`.
pub fn parse_alpn(value: &str) -> Result<Alpn, OptionError> {
    Alpn::parse(value).ok_or_else(|| OptionError::Alpn(value.to_string()))
}

/// Checks `--delay-ms` (0 to 10 s one way).
pub fn parse_delay_ms(value: f64) -> Result<f64, OptionError> {
    if value.is_finite() && (0.0..=10_000.0).contains(&value) {
        Ok(value)
    } else {
        Err(OptionError::DelayMs(value.to_string()))
    }
}

/// Checks `--jitter-ms` and `--retransmit-ms` (`what`: which), 0 to 10 s.
pub fn parse_link_ms(what: &'static str, value: f64) -> Result<f64, OptionError> {
    if value.is_finite() && (0.0..=10_000.0).contains(&value) {
        Ok(value)
    } else {
        Err(OptionError::LinkMs(what, value.to_string()))
    }
}

/// Checks `--loss-percent`: 0 to 50 (above, TCP would not get through).
pub fn parse_loss_percent(value: f64) -> Result<f64, OptionError> {
    if value.is_finite() && (0.0..=50.0).contains(&value) {
        Ok(value)
    } else {
        Err(OptionError::LossPercent(value.to_string()))
    }
}

/// Checks `--up-kbps` and `--down-kbps`: 8 kbit/s to 10 Gbit/s.
pub fn parse_kbps(value: f64) -> Result<f64, OptionError> {
    if value.is_finite() && (8.0..=10_000_000.0).contains(&value) {
        Ok(value)
    } else {
        Err(OptionError::Kbps(value.to_string()))
    }
}

/// Checks `--close-after`.
pub fn parse_close_after(value: u32) -> Result<u32, OptionError> {
    if value == 0 {
        Err(OptionError::CloseAfterZero)
    } else {
        Ok(value)
    }
}

/// Checks `--redirect-to`.
pub fn parse_redirect_to(value: &str) -> Result<String, OptionError> {
    if value.starts_with("http://") || value.starts_with("https://") {
        Ok(value.to_string())
    } else {
        Err(OptionError::RedirectTo(value.to_string()))
    }
}

/// Checks a CSP source list (`--csp-frame-ancestors`, `--csp-connect-src`).
pub fn parse_csp_sources(value: &str) -> Result<String, OptionError> {
    if value.contains([';', ',', '\n', '\r']) {
        Err(OptionError::CspSources(value.to_string()))
    } else {
        Ok(value.trim().to_string())
    }
}

impl FileConfig {
    /// Parses TOML, or JSON when the file ends in `.json`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            serde_json::from_str(text).map_err(|e| ConfigError::Json {
                path: path.to_path_buf(),
                message: e.to_string(),
            })
        } else {
            toml::from_str(text).map_err(|e| ConfigError::Toml {
                path: path.to_path_buf(),
                message: e.to_string(),
            })
        }
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(path, &text)
    }

    /// Applies the file over `config`.
    pub fn apply(&self, config: &mut ServerConfig) -> Result<(), ConfigError> {
        if let Some(slots) = self.slots {
            config.slots = slots.max(1);
        }
        if let Some(block_tokens) = self.block_tokens {
            config.block_tokens = block_tokens.max(1);
        }
        if let Some(mode) = &self.cache_mode {
            config.cache_mode = parse_cache_mode(mode)?;
        }
        if self.no_cache == Some(true) {
            config.cache_mode = CacheMode::Off;
        }
        if let Some(jitter_ms) = self.jitter_ms {
            config.jitter_ms = jitter_ms.max(0.0);
        }
        if let Some(seed) = self.seed {
            config.seed = seed;
        }
        if let Some(key) = &self.require_key {
            config.require_key = Some(key.clone());
        }
        if let Some(no_cors) = self.no_cors {
            config.cors_enabled = !no_cors;
        }
        if let Some(dist) = &self.dist {
            config.dist = Some(dist.clone());
        }
        if let Some(accept) = self.accept_unversioned {
            config.accept_unversioned = accept;
        }
        if let Some(fault) = &self.fault {
            config.fault = Some(parse_fault(fault)?);
        }
        if let Some(target) = &self.redirect_to {
            config.redirect_to = Some(parse_redirect_to(target)?);
        }
        if let Some(record) = self.record_requests {
            config.record_requests = record;
        }
        if let Some(off) = self.no_tokenize {
            config.tokenize_enabled = !off;
        }
        if let Some(off) = self.no_context_info {
            config.context_info = !off;
        }
        if let Some(off) = self.no_trace_headers {
            config.trace_headers_allowed = !off;
        }
        if let Some(off) = self.no_csp {
            config.csp.enabled = !off;
        }
        if let Some(sources) = &self.csp_frame_ancestors {
            config.csp.frame_ancestors = parse_csp_sources(sources)?;
        }
        if let Some(sources) = &self.csp_connect_src {
            config.csp.connect_src = parse_csp_sources(sources)?;
        }
        for (key, value) in &self.set {
            for profile in config.profiles.by_name.values_mut() {
                profile
                    .set_json(key, value)
                    .map_err(|source| ConfigError::Profile {
                        context: "config `set`".into(),
                        source,
                    })?;
            }
        }
        for (name, fields) in &self.profiles {
            let mut profile = config
                .profiles
                .by_name
                .get(name)
                .cloned()
                .unwrap_or_else(Profile::default);
            for (key, value) in fields {
                profile
                    .set_json(key, value)
                    .map_err(|source| ConfigError::Profile {
                        context: format!("config profile `{name}`"),
                        source,
                    })?;
            }
            config.profiles.by_name.insert(name.clone(), profile);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_and_json_files() {
        let toml_text = r#"
slots = 2
no_cache = true
[set]
itl_ms = 10
[profiles.sim-fast]
base_ms = 5
[profiles.my-model]
reasoning_tokens = 3
reasoning_style = "reasoning"
"#;
        let file = FileConfig::parse(Path::new("c.toml"), toml_text).unwrap();
        let mut config = ServerConfig::default();
        file.apply(&mut config).unwrap();
        assert_eq!(config.slots, 2);
        assert_eq!(config.cache_mode, CacheMode::Off);
        let fast = &config.profiles.by_name["sim-fast"];
        assert_eq!((fast.base_ms, fast.itl_ms), (5.0, 10.0));
        assert_eq!(config.profiles.by_name["sim-reasoning"].itl_ms, 10.0);
        assert_eq!(config.profiles.by_name["my-model"].reasoning_tokens, 3);

        let json_text = r#"{"slots": 1, "profiles": {"sim-fast": {"early_role": true}}}"#;
        let file = FileConfig::parse(Path::new("c.json"), json_text).unwrap();
        let mut config = ServerConfig::default();
        file.apply(&mut config).unwrap();
        assert_eq!(config.slots, 1);
        assert!(config.profiles.by_name["sim-fast"].early_role);
    }

    #[test]
    fn server_options_from_a_file() {
        let text = r#"
cache_mode = "last-prompt"
fault = "drip"
redirect_to = "http://127.0.0.1:9"
record_requests = true
no_tokenize = true
no_context_info = true
no_trace_headers = true
csp_frame_ancestors = "https://docs.example.com"
"#;
        let file = FileConfig::parse(Path::new("c.toml"), text).unwrap();
        let mut config = ServerConfig::default();
        file.apply(&mut config).unwrap();
        assert_eq!(config.cache_mode, CacheMode::LastPrompt);
        assert_eq!(config.fault, Some(Fault::Drip));
        assert_eq!(config.redirect_to.as_deref(), Some("http://127.0.0.1:9"));
        assert!(config.record_requests);
        assert!(!config.tokenize_enabled && !config.context_info && !config.trace_headers_allowed);
        assert_eq!(config.csp.frame_ancestors, "https://docs.example.com");
        for bad in [
            "cache_mode = \"lru\"",
            "fault = \"boom\"",
            "redirect_to = \"127.0.0.1:9\"",
            "csp_connect_src = \"'self'; script-src *\"",
        ] {
            let file = FileConfig::parse(Path::new("c.toml"), bad).unwrap();
            let error = file.apply(&mut ServerConfig::default()).unwrap_err();
            assert!(!error.to_string().is_empty(), "{bad}");
        }
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(FileConfig::parse(Path::new("c.toml"), "slotz = 1").is_err());
        let file = FileConfig::parse(Path::new("c.toml"), "[set]\nnope = 1").unwrap();
        assert!(file.apply(&mut ServerConfig::default()).is_err());
    }
}
