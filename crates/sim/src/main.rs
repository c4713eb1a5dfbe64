//! ttft-sim: a simulated LLM provider with deterministic timing.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ttft_sim::cache::CacheMode;
use ttft_sim::config::{self, FileConfig, DEFAULT_PORT};
use ttft_sim::network::TlsOptions;
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
    /// Turn the prefix cache off (cached tokens are always 0); same as --cache-mode off
    #[arg(long)]
    no_cache: bool,
    /// Prefix cache: blocks (vLLM-like), last-prompt (llama.cpp-like: each slot keeps only
    /// its last prompt) or off [default: blocks]
    #[arg(long, value_name = "MODE")]
    cache_mode: Option<String>,
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
    /// Serve this directory (the built page) at / with COOP/COEP and a strict CSP
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,
    /// No Content-Security-Policy on --dist files
    #[arg(long)]
    no_csp: bool,
    /// CSP frame-ancestors: who may frame the page
    /// [default: 'self' http://127.0.0.1:* http://localhost:* https://127.0.0.1:* https://localhost:*]
    #[arg(long, value_name = "SOURCES")]
    csp_frame_ancestors: Option<String>,
    /// CSP connect-src: what the page may call [default: 'self' http: https:]
    #[arg(long, value_name = "SOURCES")]
    csp_connect_src: Option<String>,
    /// Print the Content-Security-Policy header of --dist's index.html and exit
    #[arg(long)]
    print_csp: bool,
    /// Also serve /chat/completions, /messages, /responses, /models (without /v1)
    #[arg(long)]
    accept_unversioned: bool,
    /// A fault for every request that names none (e.g. xss, drip, redirect)
    #[arg(long, value_name = "NAME")]
    fault: Option<String>,
    /// Target of the redirect fault: an origin (the request's path is kept) or a full URL
    /// [default: http://127.0.0.1:<port + 1>]
    #[arg(long, value_name = "URL")]
    redirect_to: Option<String>,
    /// Remember every request; list them at GET /__sim/requests, clear with DELETE
    #[arg(long)]
    record_requests: bool,
    /// No POST /tokenize (as a server without one)
    #[arg(long)]
    no_tokenize: bool,
    /// No context windows exposed (no GET /props, no max_model_len/meta in /v1/models)
    #[arg(long)]
    no_context_info: bool,
    /// CORS preflights do not allow traceparent/tracestate
    #[arg(long)]
    no_trace_headers: bool,
    /// No Timing-Allow-Origin (as most providers: a page then sees no Resource Timing detail)
    #[arg(long)]
    no_timing_allow_origin: bool,
    /// Serve TLS with a certificate made at start: HTTP/2 and HTTP/1.1 by ALPN
    #[arg(long)]
    tls: bool,
    /// With --tls, the ALPN offer: both (h2, http/1.1), h2 or http/1.1 [default: both]
    #[arg(long, value_name = "OFFER")]
    alpn: Option<String>,
    /// With --tls, a name of the certificate (repeatable) [default: 127.0.0.1 and localhost]
    #[arg(long = "tls-name", value_name = "NAME")]
    tls_names: Vec<String>,
    /// With --tls, serve this certificate chain (PEM) instead of making one (with --tls-key)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// With --tls, the key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// With --tls, write the certificate (PEM, not the key) to this file
    #[arg(long, value_name = "FILE")]
    tls_cert_out: Option<PathBuf>,
    /// Close each connection after N requests (preflights count), as gateways do
    #[arg(long, value_name = "N")]
    close_after: Option<u32>,
    /// Delay every byte by D ms in each direction (a round trip of 2·D) [default: 0]
    #[arg(long, value_name = "D")]
    delay_ms: Option<f64>,
    /// Add up to J ms more per segment, at random (the link's jitter) [default: 0]
    #[arg(long, value_name = "J")]
    link_jitter_ms: Option<f64>,
    /// Lose P % of segments once in each direction; each costs a resend [default: 0]
    #[arg(long, value_name = "P")]
    loss_percent: Option<f64>,
    /// What a lost segment's resend costs, ms [default: 200 + 2·D]
    #[arg(long, value_name = "R")]
    retransmit_ms: Option<f64>,
    /// Limit the client's upload to K kbit/s [default: unlimited]
    #[arg(long, value_name = "K")]
    up_kbps: Option<f64>,
    /// Limit the client's download to K kbit/s [default: unlimited]
    #[arg(long, value_name = "K")]
    down_kbps: Option<f64>,
    /// Seed of the link's random draws (loss, jitter); each connection adds its number [default: 0]
    #[arg(long, value_name = "S")]
    link_seed: Option<u64>,
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
    if let Some(mode) = &cli.cache_mode {
        config.cache_mode = config::parse_cache_mode(mode).map_err(|e| e.to_string())?;
    }
    if cli.no_cache {
        config.cache_mode = CacheMode::Off;
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
    if let Some(fault) = &cli.fault {
        config.fault = Some(config::parse_fault(fault).map_err(|e| e.to_string())?);
    }
    if let Some(target) = &cli.redirect_to {
        config.redirect_to = Some(config::parse_redirect_to(target).map_err(|e| e.to_string())?);
    }
    if cli.record_requests {
        config.record_requests = true;
    }
    if cli.no_tokenize {
        config.tokenize_enabled = false;
    }
    if cli.no_context_info {
        config.context_info = false;
    }
    if cli.no_trace_headers {
        config.trace_headers_allowed = false;
    }
    if cli.no_csp {
        config.csp.enabled = false;
    }
    if let Some(sources) = &cli.csp_frame_ancestors {
        config.csp.frame_ancestors =
            config::parse_csp_sources(sources).map_err(|e| e.to_string())?;
    }
    if let Some(sources) = &cli.csp_connect_src {
        config.csp.connect_src = config::parse_csp_sources(sources).map_err(|e| e.to_string())?;
    }
    if cli.no_timing_allow_origin {
        config.timing_allow_origin = false;
    }
    apply_network(cli, &mut config)?;
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

/// `--tls`, `--alpn`, `--tls-name`, `--tls-cert-out`, `--close-after`, `--delay-ms`.
fn apply_network(cli: &Cli, config: &mut ServerConfig) -> Result<(), String> {
    let tls_only = cli.alpn.is_some()
        || !cli.tls_names.is_empty()
        || cli.tls_cert_out.is_some()
        || cli.tls_cert.is_some();
    if tls_only && !cli.tls {
        return Err(
            "--alpn, --tls-name, --tls-cert, --tls-key and --tls-cert-out need --tls".into(),
        );
    }
    if cli.tls {
        let mut tls = TlsOptions::default();
        if let Some(offer) = &cli.alpn {
            tls.alpn = config::parse_alpn(offer).map_err(|e| e.to_string())?;
        }
        if !cli.tls_names.is_empty() {
            tls.names.clone_from(&cli.tls_names);
        }
        tls.cert_out.clone_from(&cli.tls_cert_out);
        if let (Some(cert), Some(key)) = (&cli.tls_cert, &cli.tls_key) {
            tls.cert_and_key = Some((cert.clone(), key.clone()));
        }
        config.network.tls = Some(tls);
    }
    if let Some(requests) = cli.close_after {
        config.network.close_after_requests =
            Some(config::parse_close_after(requests).map_err(|e| e.to_string())?);
    }
    if let Some(delay_ms) = cli.delay_ms {
        config.network.one_way_delay_ms =
            config::parse_delay_ms(delay_ms).map_err(|e| e.to_string())?;
    }
    let link = &mut config.network;
    if let Some(jitter_ms) = cli.link_jitter_ms {
        link.jitter_ms = config::parse_link_ms("jitter", jitter_ms).map_err(|e| e.to_string())?;
    }
    if let Some(percent) = cli.loss_percent {
        link.loss_percent = config::parse_loss_percent(percent).map_err(|e| e.to_string())?;
    }
    if let Some(retransmit_ms) = cli.retransmit_ms {
        link.retransmit_ms =
            Some(config::parse_link_ms("retransmit", retransmit_ms).map_err(|e| e.to_string())?);
    }
    if let Some(kbps) = cli.up_kbps {
        link.up_kbps = Some(config::parse_kbps(kbps).map_err(|e| e.to_string())?);
    }
    if let Some(kbps) = cli.down_kbps {
        link.down_kbps = Some(config::parse_kbps(kbps).map_err(|e| e.to_string())?);
    }
    if let Some(seed) = cli.link_seed {
        link.link_seed = seed;
    }
    Ok(())
}

/// `--print-csp`: the header a deployer should send with the page.
fn print_csp(config: &ServerConfig) -> ExitCode {
    let Some(dist) = &config.dist else {
        eprintln!(
            "ttft-sim: --print-csp needs --dist DIR (the built page whose scripts it hashes)"
        );
        return ExitCode::from(2);
    };
    let index = dist.join("index.html");
    match std::fs::read_to_string(&index) {
        Ok(html) => {
            let policy = ttft_sim::static_files::policy_for_page(&config.csp, &html);
            println!("Content-Security-Policy: {policy}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "ttft-sim: cannot read {}: {error} (build the page first: trunk build --release)",
                index.display()
            );
            ExitCode::from(1)
        }
    }
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
    if cli.print_csp {
        return print_csp(&config);
    }
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
    let tls = match &config.network.tls {
        Some(options) => match ttft_sim::tls::Tls::new(options) {
            Ok(tls) => Some(std::sync::Arc::new(tls)),
            Err(error) => {
                eprintln!("ttft-sim: {error}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut stdout = std::io::stdout();
    // Scripts wait for exactly this line to learn the port (and the scheme).
    let _ = writeln!(
        stdout,
        "ttft-sim listening on {}://127.0.0.1:{bound_port}",
        config.network.scheme()
    );
    if let Some(spki) = tls.as_ref().and_then(|tls| tls.spki_sha256_base64.as_ref()) {
        // What Chromium's --ignore-certificate-errors-spki-list takes.
        let _ = writeln!(stdout, "ttft-sim certificate spki sha256 {spki}");
    }
    let _ = stdout.flush();
    match ttft_sim::serve_tls(config, listener, tls).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ttft-sim: {error}");
            ExitCode::from(1)
        }
    }
}
