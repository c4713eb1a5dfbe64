//! ttft-relay: a loopback relay in front of one LLM provider (docs/relay.md).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use ttft_relay::config::{self, OriginPattern, RelayConfig, Upstream, DEFAULT_PORT};

/// A relay on 127.0.0.1 in front of one LLM provider: answers the page's CORS preflight,
/// streams the answer through untouched, and tells the page what it saw upstream.
#[derive(Debug, Parser)]
#[command(name = "ttft-relay", version, about)]
struct Cli {
    /// The provider's base URL, e.g. https://dashscope.aliyuncs.com/compatible-mode/v1: the
    /// only host the relay talks to; requests may only reach paths under its path
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// TCP port on 127.0.0.1 (0 = any free port)
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Also trust the certificates of this PEM file upstream (a private CA, or ttft-sim's
    /// --tls-cert-out)
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
    /// A page origin allowed to call the relay (repeatable; `scheme://host:*` for any port)
    /// [default: http://127.0.0.1:* http://localhost:* http://[::1]:*]
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// How long the upstream may take to its response headers, ms
    #[arg(long, value_name = "MS", default_value_t = 600_000)]
    upstream_timeout_ms: u64,
    /// No line per request on stderr
    #[arg(long)]
    quiet: bool,
}

fn build_config(cli: &Cli) -> Result<RelayConfig, String> {
    let upstream = Upstream::parse(&cli.upstream).map_err(|error| error.to_string())?;
    let mut config = RelayConfig::new(upstream);
    if !cli.allow_origins.is_empty() {
        config.allowed_origins = cli
            .allow_origins
            .iter()
            .map(|origin| OriginPattern::parse(origin))
            .collect::<Result<_, _>>()
            .map_err(|error| error.to_string())?;
    }
    config.extra_ca_file.clone_from(&cli.ca_file);
    if cli.upstream_timeout_ms == 0 {
        return Err("--upstream-timeout-ms must be at least 1".into());
    }
    config.upstream_timeout = Duration::from_millis(cli.upstream_timeout_ms);
    Ok(config)
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match build_config(&cli) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("ttft-relay: {message}");
            return ExitCode::from(2);
        }
    };
    let upstream = config.upstream.clone();
    let bound = match ttft_relay::bind(config.clone(), cli.port, !cli.quiet).await {
        Ok(bound) => bound,
        Err(error) => {
            eprintln!("ttft-relay: {error}");
            return ExitCode::from(1);
        }
    };
    let port = bound.address.port();
    let origins: Vec<String> = config
        .allowed_origins
        .iter()
        .map(|pattern| match pattern {
            config::OriginPattern::Exact(origin) => origin.clone(),
            config::OriginPattern::AnyPort(prefix) => format!("{prefix}:*"),
        })
        .collect();
    let mut notes = format!(
        "ttft-relay: forwarding to {}{} only; pages allowed: {}\n",
        upstream.origin(),
        upstream.base_path,
        origins.join(" ")
    );
    if let Some(trust) = &bound.trust {
        notes.push_str(&format!(
            "ttft-relay: trusting {} certificates of {} and {} of --ca-file\n",
            trust.system_certificates,
            config.ca_bundle.display(),
            trust.extra_certificates
        ));
        if let Some(problem) = &trust.system_problem {
            notes.push_str(&format!(
                "ttft-relay: warning: nothing from {}: {problem}\n",
                config.ca_bundle.display()
            ));
        }
    }
    // Each output in one write, stderr's first: a script that reads stdout's lines and
    // stops the relay then has all of it.
    let _ = std::io::stderr().write_all(notes.as_bytes());
    // Scripts wait for the first line to learn the port; the second is the user's to paste.
    let lines = format!(
        "ttft-relay listening on http://127.0.0.1:{port}\nbase URL for the page: http://127.0.0.1:{port}{}\n",
        upstream.base_path
    );
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(lines.as_bytes());
    let _ = stdout.flush();
    ttft_relay::serve(bound.relay, bound.listener).await;
    ExitCode::SUCCESS
}
