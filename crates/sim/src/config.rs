//! Server configuration: defaults, the config file (`--config FILE`, TOML or JSON) and the
//! command line, in that order of precedence (later wins).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::profile::{Profile, ProfileError, Profiles};

/// Default TCP port.
pub const DEFAULT_PORT: u16 = 8787;
/// Default number of server slots.
pub const DEFAULT_SLOTS: usize = 4;
/// Default prefix-cache block size, tokens.
pub const DEFAULT_BLOCK_TOKENS: usize = 64;

/// Everything the server needs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Concurrent requests served; later ones queue (FIFO).
    pub slots: usize,
    /// Prefix-cache block size, tokens.
    pub block_tokens: usize,
    /// Prefix cache on.
    pub cache_enabled: bool,
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
    /// Model profiles.
    pub profiles: Profiles,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            slots: DEFAULT_SLOTS,
            block_tokens: DEFAULT_BLOCK_TOKENS,
            cache_enabled: true,
            jitter_ms: 0.0,
            seed: 0,
            require_key: None,
            cors_enabled: true,
            dist: None,
            accept_unversioned: false,
            profiles: Profiles::builtin(),
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
    /// A profile option was refused.
    #[error("{context}: {source}")]
    Profile {
        /// Where.
        context: String,
        /// What.
        source: ProfileError,
    },
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
        if let Some(no_cache) = self.no_cache {
            config.cache_enabled = !no_cache;
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
        assert!(!config.cache_enabled);
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
    fn bad_files_are_refused() {
        assert!(FileConfig::parse(Path::new("c.toml"), "slotz = 1").is_err());
        let file = FileConfig::parse(Path::new("c.toml"), "[set]\nnope = 1").unwrap();
        assert!(file.apply(&mut ServerConfig::default()).is_err());
    }
}
