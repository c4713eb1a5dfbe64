//! ttft-sim: a simulated LLM provider with deterministic timing.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ttft_sim::config::{FileConfig, DEFAULT_PORT};
use ttft_sim::ServerConfig;

/// A simulated LLM provider with a deterministic timing model.
#[derive(Debug, Parser)]
#[command(name = "ttft-sim", version, about, after_help = ttft_sim::HELP)]
struct Cli {
    /// TCP port on 127.0.0.1 (0 = any free port) [default: 8787]
    #[arg(long)]
    port: Option<u16>,
    /// Server slots: concurrent requests; later ones wait in FIFO order [default: 4]
    #[arg(long)]
    slots: Option<usize>,
    /// Prefix-cache block size, tokens [default: 64]
    #[arg(long)]
    block_tokens: Option<usize>,
    /// Turn the prefix cache off (cached tokens are always 0)
    #[arg(long)]
    no_cache: bool,
    /// Add uniform random [0, J) ms to prefill and to every ITL gap [default: 0]
    #[arg(long, value_name = "J")]
    jitter_ms: Option<f64>,
    /// Seed of the jitter generator [default: 0]
    #[arg(long)]
    seed: Option<u64>,
    /// Require this API key (Authorization: Bearer on chat/responses, x-api-key on messages)
    #[arg(long, value_name = "KEY")]
    require_key: Option<String>,
    /// No CORS headers at all (browsers then refuse every API response)
    #[arg(long)]
    no_cors: bool,
    /// Serve this directory (the built page) at / with COOP/COEP
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,
    /// Also serve /chat/completions, /messages, /responses, /models (without /v1)
    #[arg(long)]
    accept_unversioned: bool,
    /// Config file (TOML, or JSON if it ends in .json)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Set a profile field on every profile, e.g. --set itl_ms=10 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print the profiles (after config and --set) and exit
    #[arg(long)]
    list_profiles: bool,
}

fn build_config(cli: &Cli) -> Result<(ServerConfig, u16), String> {
    let mut config = ServerConfig::default();
    let mut port = DEFAULT_PORT;
    if let Some(path) = &cli.config {
        let file = FileConfig::load(path).map_err(|e| e.to_string())?;
        file.apply(&mut config).map_err(|e| e.to_string())?;
        port = file.port.unwrap_or(port);
    }
    port = cli.port.unwrap_or(port);
    if let Some(slots) = cli.slots {
        config.slots = slots.max(1);
    }
    if let Some(block_tokens) = cli.block_tokens {
        config.block_tokens = block_tokens.max(1);
    }
    if cli.no_cache {
        config.cache_enabled = false;
    }
    if let Some(jitter_ms) = cli.jitter_ms {
        config.jitter_ms = jitter_ms.max(0.0);
    }
    if let Some(seed) = cli.seed {
        config.seed = seed;
    }
    if let Some(key) = &cli.require_key {
        config.require_key = Some(key.clone());
    }
    if cli.no_cors {
        config.cors_enabled = false;
    }
    if let Some(dist) = &cli.dist {
        config.dist = Some(dist.clone());
    }
    if cli.accept_unversioned {
        config.accept_unversioned = true;
    }
    for pair in &cli.set {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("--set {pair}: expected KEY=VALUE"))?;
        config
            .profiles
            .set_all(key.trim(), value)
            .map_err(|e| format!("--set {pair}: {e}"))?;
    }
    Ok((config, port))
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let (config, port) = match build_config(&cli) {
        Ok(built) => built,
        Err(message) => {
            eprintln!("ttft-sim: {message}");
            return ExitCode::from(2);
        }
    };
    if cli.list_profiles {
        for (name, profile) in &config.profiles.by_name {
            println!("{name}: {profile}");
        }
        return ExitCode::SUCCESS;
    }
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("ttft-sim: cannot listen on 127.0.0.1:{port}: {error}");
            return ExitCode::from(1);
        }
    };
    let bound_port = listener.local_addr().map_or(port, |a| a.port());
    let mut stdout = std::io::stdout();
    // Scripts wait for exactly this line to learn the port.
    let _ = writeln!(
        stdout,
        "ttft-sim listening on http://127.0.0.1:{bound_port}"
    );
    let _ = stdout.flush();
    match ttft_sim::serve(config, listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ttft-sim: {error}");
            ExitCode::from(1)
        }
    }
}
