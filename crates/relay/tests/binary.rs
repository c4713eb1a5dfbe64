//! The `ttft-relay` binary: what it prints (the lines scripts and users read), how it
//! refuses a bad command line, and that a key sent through it never appears in its own
//! output (stdout, stderr) or its own answers, whatever the upstream and the page do.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use ttft_sim::network::Alpn;

const KEY: &str = "sk-relay-SECRET-4f2c9a";

/// A running relay binary: its origin, and its output once stopped.
struct RelayProcess {
    child: Child,
    origin: String,
    stdout_lines: mpsc::Receiver<String>,
    first_lines: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl RelayProcess {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ttft-relay"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, stdout_lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        let first = stdout_lines.recv_timeout(Duration::from_secs(20)).unwrap();
        let second = stdout_lines.recv_timeout(Duration::from_secs(5)).unwrap();
        let origin = first
            .strip_prefix("ttft-relay listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_owned();
        Self {
            child,
            origin,
            stdout_lines,
            first_lines: vec![first, second],
            stderr,
        }
    }

    /// Stops it; everything it printed (stdout, then stderr).
    fn stop(mut self) -> (String, String) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let mut stdout = self.first_lines.join("\n");
        while let Ok(line) = self.stdout_lines.recv_timeout(Duration::from_secs(2)) {
            stdout.push('\n');
            stdout.push_str(&line);
        }
        (stdout, self.stderr.join().unwrap())
    }
}

#[tokio::test]
async fn it_prints_the_base_url_to_paste() {
    let relay = RelayProcess::start(&[
        "--port",
        "0",
        "--upstream",
        "http://127.0.0.1:9/compatible-mode/v1/",
    ]);
    let port = relay.origin.rsplit(':').next().unwrap().to_owned();
    assert_eq!(relay.origin, format!("http://127.0.0.1:{port}"));
    assert_eq!(
        relay.first_lines[1],
        format!("base URL for the page: http://127.0.0.1:{port}/compatible-mode/v1")
    );
    let (stdout, stderr) = relay.stop();
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        stderr.contains("forwarding to http://127.0.0.1:9/compatible-mode/v1 only"),
        "{stderr}"
    );
}

#[test]
fn a_bad_command_line_is_explained() {
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_ttft-relay"))
            .args(args)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--upstream"), "{stderr}");
    let (code, stderr) = run(&["--upstream", "api.example.com/v1"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no scheme"), "{stderr}");
    let (code, stderr) = run(&[
        "--upstream",
        "https://api.example.com/v1",
        "--allow-origin",
        "evil",
    ]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--allow-origin evil"), "{stderr}");
    let (code, stderr) = run(&[
        "--port",
        "0",
        "--upstream",
        "https://api.example.com/v1",
        "--ca-file",
        "/nonexistent/ca.pem",
    ]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("--ca-file /nonexistent/ca.pem"), "{stderr}");
    let output = Command::new(env!("CARGO_BIN_EXE_ttft-relay"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--upstream",
        "--port",
        "--ca-file",
        "--allow-origin",
        "--upstream-timeout-ms",
    ] {
        assert!(help.contains(flag), "{flag} in {help}");
    }
}

/// What the relay itself said in an answer: its error body, or the lines it wrote into a
/// stream.
async fn relay_own_words(response: reqwest::Response) -> String {
    let own_error = response.headers().contains_key("x-ttft-relay-error");
    // Read as it comes: an aborted stream keeps what arrived before the abort.
    let (body, _clean) = read_all(response).await;
    if own_error {
        return body;
    }
    body.lines()
        .filter(|line| line.starts_with(": ttft-relay"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_key_sent_through_never_appears_in_the_relays_output_or_answers() {
    let sim = start_sim(Some(Alpn::Both), 0.0).await;
    let cert = sim.cert_file.clone().unwrap();
    let relay = RelayProcess::start(&[
        "--port",
        "0",
        "--upstream",
        &sim.base_url(),
        "--ca-file",
        cert.to_str().unwrap(),
    ]);
    // One whose upstream is unreachable.
    let closed = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let dead_port = closed.local_addr().unwrap().port();
    drop(closed);
    let dead_upstream = format!("http://127.0.0.1:{dead_port}/v1");
    let dead = RelayProcess::start(&["--port", "0", "--upstream", &dead_upstream]);

    let mut said = Vec::new();
    let bearer = format!("Bearer {KEY}");
    let send = |origin: &str, path: &str, model: &str, page: &'static str| {
        client()
            .post(format!("{origin}{path}"))
            .header("origin", page)
            .header("authorization", bearer.as_str())
            .header("x-api-key", KEY)
            .json(&chat_body(model))
            .send()
    };
    let relay_origin = relay.origin.clone();
    for model in [
        "sim-fast@prefill_ms=1",
        "sim-fast@fault=echo_key",
        "sim-fast@fault=echo_key_midstream,prefill_ms=1",
        "sim-fast@fault=drop,prefill_ms=1,itl_ms=1",
    ] {
        let response = send(&relay_origin, "/v1/chat/completions", model, PAGE_ORIGIN)
            .await
            .unwrap();
        said.push(relay_own_words(response).await);
    }
    // The relay's own refusals and failures, each with the key in the request.
    let refused = [
        send(
            &relay_origin,
            "/v1/chat/completions",
            "sim-fast",
            "https://evil.example",
        ),
        send(&relay_origin, "/admin", "sim-fast", PAGE_ORIGIN),
        send(
            &relay_origin,
            &format!("/v1/models?key={KEY}"),
            "sim-fast",
            PAGE_ORIGIN,
        ),
        send(
            &dead.origin,
            "/v1/chat/completions",
            "sim-fast",
            PAGE_ORIGIN,
        ),
    ];
    for request in refused {
        said.push(relay_own_words(request.await.unwrap()).await);
    }
    let too_large = client()
        .get(format!("{relay_origin}/v1/models"))
        .header("authorization", bearer.as_str())
        .header("x-long", "a".repeat(70 * 1024))
        .send()
        .await
        .unwrap();
    assert_eq!(too_large.status(), 431);
    said.push(relay_own_words(too_large).await);

    let (stdout, stderr) = relay.stop();
    let (dead_stdout, dead_stderr) = dead.stop();
    assert!(
        stderr.contains("POST /v1/chat/completions -> 200"),
        "{stderr}"
    );
    assert!(
        stderr.contains("POST /v1/models -> "),
        "the path without its query: {stderr}"
    );
    assert!(dead_stderr.contains("upstream-connect"), "{dead_stderr}");
    assert!(
        said.iter().any(|words| words.contains("upstream-error")),
        "{said:?}"
    );
    for (what, text) in [
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("the dead relay's stdout", &dead_stdout),
        ("the dead relay's stderr", &dead_stderr),
    ] {
        assert!(
            !text.contains(KEY) && !text.contains("SECRET"),
            "{what}: {text}"
        );
    }
    for words in &said {
        assert!(!words.contains("SECRET"), "the relay said: {words}");
    }
    // It did pass through, to the provider only.
    let log = sim.log().await;
    assert!(log.requests.iter().any(|request| {
        request
            .headers
            .iter()
            .any(|(name, value)| name == "authorization" && value == &bearer)
    }));
}
