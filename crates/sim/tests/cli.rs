//! The binary: the listening line, --help, flags and config errors.

// Test crate: failures panic by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_ttft-sim");

#[tokio::test]
async fn prints_one_listening_line_and_serves() {
    let config = std::env::temp_dir().join(format!("ttft-sim-cli-{}.toml", std::process::id()));
    std::fs::write(
        &config,
        "slots = 2\n[profiles.my-model]\nanswer_tokens = 2\nprefill_ms = 5\n",
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .args(["--port", "0", "--config"])
        .arg(&config)
        .args(["--set", "itl_ms=1"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim_end()
        .strip_prefix("ttft-sim listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let models: serde_json::Value = client
        .get(format!("http://127.0.0.1:{port}/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(
        ids.contains(&"my-model") && ids.contains(&"sim-fast"),
        "{ids:?}"
    );
    let body =
        serde_json::json!({"model": "my-model", "messages": [{"role": "user", "content": "hi"}]});
    let completion: serde_json::Value = client
        .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(completion["choices"][0]["message"]["content"], "Here is");
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_file(config);
}

#[test]
fn help_documents_the_contract() {
    let output = Command::new(BIN).arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for needle in [
        "--port",
        "--slots",
        "--no-cache",
        "--jitter-ms",
        "--seed",
        "--require-key",
        "--no-cors",
        "--dist",
        "--accept-unversioned",
        "--config",
        "--set",
        "--cache-mode",
        "--fault",
        "--redirect-to",
        "--record-requests",
        "--no-tokenize",
        "--no-context-info",
        "--no-trace-headers",
        "--no-csp",
        "--csp-frame-ancestors",
        "--csp-connect-src",
        "--print-csp",
        "--tls",
        "--alpn",
        "--tls-name",
        "--tls-cert-out",
        "--tls-cert",
        "--tls-key",
        "--close-after",
        "--delay-ms",
        "--no-timing-allow-origin",
        "NETWORK",
        "connection_request",
        "REQUEST RECORDER",
        "CONTEXT WINDOW",
        "exceed_context_size_error",
        "think_no_open",
        "MODEL-NAME SUFFIX",
        "FAULTS",
        "TOKEN COUNTING",
        "x-sim-queue-ms",
        "sim-slow-prefill",
        "b_ms_per_token2",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}");
    }
}

#[test]
fn bad_options_exit_with_a_message() {
    let output = Command::new(BIN)
        .args(["--set", "bogus=1", "--list-profiles"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("unknown option `bogus`"), "{stderr}");
    let output = Command::new(BIN)
        .args(["--set", "itl_ms=7", "--list-profiles"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let listing = String::from_utf8(output.stdout).unwrap();
    assert!(listing.lines().all(|l| l.contains("itl_ms=7")), "{listing}");
}

#[test]
fn print_csp_hashes_the_pages_inline_scripts() {
    let dist = std::env::temp_dir().join(format!("ttft-sim-cli-csp-{}", std::process::id()));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<script type=\"module\">x()</script>",
    )
    .unwrap();
    let output = Command::new(BIN)
        .arg("--print-csp")
        .arg("--dist")
        .arg(&dist)
        .args(["--csp-frame-ancestors", "https://docs.example.com"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let printed = String::from_utf8(output.stdout).unwrap();
    // printf 'x()' | openssl dgst -sha256 -binary | base64
    assert_eq!(
        printed,
        "Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval' \
         'sha256-D6IGS8VMvCoyaR/l0h9tERrBTATY01CoPS7l6xDv0kI='; style-src 'self'; img-src \
         'self' data: blob:; connect-src 'self' http: https:; worker-src 'self'; \
         frame-ancestors https://docs.example.com; base-uri 'self'; form-action 'self'; \
         object-src 'none'\n"
    );
    let _ = std::fs::remove_dir_all(&dist);
    // Without --dist, or without a built page: a message and a failure.
    let output = Command::new(BIN).arg("--print-csp").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("--dist"));
    let output = Command::new(BIN)
        .args(["--print-csp", "--dist", "/nonexistent-ttft-dist"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("trunk build"));
}

#[test]
fn bad_server_options_exit_with_a_message() {
    for (args, needle) in [
        (&["--cache-mode", "lru"][..], "cache mode `lru` is unknown"),
        (&["--fault", "boom"][..], "unknown fault `boom`"),
        (
            &["--redirect-to", "127.0.0.1:9"][..],
            "not an http:// or https:// URL",
        ),
        (
            &["--csp-frame-ancestors", "'self'; script-src *"][..],
            "may not contain",
        ),
    ] {
        let output = Command::new(BIN)
            .args(args)
            .arg("--list-profiles")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
