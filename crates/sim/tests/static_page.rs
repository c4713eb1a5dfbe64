//! `--dist`: the page under its Content-Security-Policy, precompressed files by
//! Accept-Encoding, and the cross-origin resource policy of documents and assets.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use ttft_sim::config::CspConfig;
use ttft_sim::ServerConfig;

/// What Trunk writes: a module loader inline, a preload, a stylesheet link.
const INLINE_LOADER: &str = "\nimport init, * as bindings from './app-1.js';\nconst wasm = await init({ module_or_path: './app-1_bg.wasm' });\nwindow.wasmBindings = bindings;\n";
// The SHA-256 of INLINE_LOADER's UTF-8 bytes, base64 (computed with Python's hashlib).
const INLINE_LOADER_HASH: &str = "'sha256-exA/tc+8iOuY4bVs1G0a4HjY6HQ/+DgRWl+SdXsrDao='";

fn index_html() -> String {
    format!(
        "<!doctype html><html><head><link rel=\"stylesheet\" href=\"./style.css\">\
         <link rel=\"modulepreload\" href=\"./app-1.js\"><script type=\"module\">{INLINE_LOADER}</script>\
         </head><body></body></html>"
    )
}

/// A dist directory with a page, a worker script, a wasm file (and its precompressed
/// siblings, whose bytes say which one was sent) and a host page.
fn make_dist(tag: &str) -> PathBuf {
    let dist = std::env::temp_dir().join(format!("ttft-sim-static-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dist);
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), index_html()).unwrap();
    std::fs::write(dist.join("fetch-worker.js"), "onmessage = () => {};").unwrap();
    std::fs::write(dist.join("embed-example.html"), "<script>host()</script>").unwrap();
    std::fs::write(dist.join("app-1_bg.wasm"), b"\0asm raw").unwrap();
    std::fs::write(dist.join("logo.png"), b"png").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(dist.join("app-1_bg.wasm.br"), b"brotli bytes").unwrap();
    std::fs::write(dist.join("app-1_bg.wasm.gz"), b"gzip bytes").unwrap();
    std::fs::write(dist.join("logo.png.br"), b"never").unwrap();
    dist
}

async fn get(base: &str, path: &str, accept_encoding: Option<&str>) -> reqwest::Response {
    let mut request = client().get(format!("{base}{path}"));
    if let Some(value) = accept_encoding {
        request = request.header("accept-encoding", value);
    }
    request.send().await.unwrap()
}

async fn serve(dist: &Path, csp: CspConfig) -> String {
    start(ServerConfig {
        dist: Some(dist.to_path_buf()),
        csp,
        ..ServerConfig::default()
    })
    .await
}

#[tokio::test]
async fn the_page_gets_a_strict_csp_with_its_inline_script_hash() {
    let dist = make_dist("csp");
    let base = serve(&dist, CspConfig::default()).await;
    let page = get(&base, "/", None).await;
    assert_eq!(page.status(), 200);
    let policy = header(page.headers(), "content-security-policy")
        .unwrap()
        .to_string();
    assert_eq!(
        policy,
        format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {INLINE_LOADER_HASH}; \
             style-src 'self'; img-src 'self' data: blob:; connect-src 'self' http: https:; \
             worker-src 'self'; frame-ancestors 'self' http://127.0.0.1:* http://localhost:* https://127.0.0.1:* https://localhost:*; \
             base-uri 'self'; form-action 'self'; object-src 'none'"
        )
    );
    // Documents may be framed by an isolated host; assets stay same-origin.
    assert_eq!(
        header(page.headers(), "cross-origin-resource-policy"),
        Some("cross-origin")
    );
    assert_eq!(
        header(page.headers(), "cross-origin-embedder-policy"),
        Some("require-corp")
    );
    assert_eq!(
        header(page.headers(), "cross-origin-opener-policy"),
        Some("same-origin")
    );
    // The worker's script carries the policy without page hashes (a worker's own CSP).
    let worker = get(&base, "/fetch-worker.js", None).await;
    let worker_policy = header(worker.headers(), "content-security-policy").unwrap();
    assert!(worker_policy.contains("connect-src 'self' http: https:"));
    assert!(!worker_policy.contains("sha256"));
    assert_eq!(
        header(worker.headers(), "cross-origin-resource-policy"),
        Some("same-origin")
    );
    // The example host page is not the widget: no CSP, still a framable document.
    let host = get(&base, "/embed-example.html", None).await;
    assert!(host.headers().get("content-security-policy").is_none());
    assert_eq!(
        header(host.headers(), "cross-origin-resource-policy"),
        Some("cross-origin")
    );
    // The same hash when the page itself is sent precompressed.
    std::fs::write(dist.join("index.html.br"), b"compressed page").unwrap();
    let page = get(&base, "/index.html", Some("br")).await;
    assert_eq!(header(page.headers(), "content-encoding"), Some("br"));
    assert_eq!(
        header(page.headers(), "content-security-policy"),
        Some(policy.as_str())
    );
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn csp_options_and_switching_it_off() {
    let dist = make_dist("csp-options");
    let base = serve(
        &dist,
        CspConfig {
            enabled: true,
            frame_ancestors: "https://docs.example.com".into(),
            connect_src: "'self' https://api.example.com".into(),
        },
    )
    .await;
    let policy = header(
        get(&base, "/", None).await.headers(),
        "content-security-policy",
    )
    .unwrap()
    .to_string();
    assert!(
        policy.contains("frame-ancestors https://docs.example.com;"),
        "{policy}"
    );
    assert!(
        policy.contains("connect-src 'self' https://api.example.com;"),
        "{policy}"
    );
    let base = serve(
        &dist,
        CspConfig {
            enabled: false,
            ..CspConfig::default()
        },
    )
    .await;
    assert!(get(&base, "/", None)
        .await
        .headers()
        .get("content-security-policy")
        .is_none());
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn precompressed_files_by_accept_encoding() {
    let dist = make_dist("encoding");
    let base = serve(&dist, CspConfig::default()).await;
    // (Accept-Encoding, expected Content-Encoding, expected bytes)
    let table: &[(Option<&str>, Option<&str>, &[u8])] = &[
        (None, None, b"\0asm raw"),
        (Some("identity"), None, b"\0asm raw"),
        (Some("gzip, deflate, br, zstd"), Some("br"), b"brotli bytes"),
        (Some("gzip"), Some("gzip"), b"gzip bytes"),
        (Some("br;q=0, gzip"), Some("gzip"), b"gzip bytes"),
        (Some("gzip;q=1, br;q=0.5"), Some("gzip"), b"gzip bytes"),
    ];
    for (accept, encoding, bytes) in table {
        let response = get(&base, "/app-1_bg.wasm", *accept).await;
        assert_eq!(response.status(), 200);
        let headers = response.headers().clone();
        assert_eq!(
            header(&headers, "content-encoding"),
            *encoding,
            "{accept:?}"
        );
        assert_eq!(header(&headers, "content-type"), Some("application/wasm"));
        assert_eq!(header(&headers, "vary"), Some("Accept-Encoding"));
        assert_eq!(
            header(&headers, "content-length"),
            Some(bytes.len().to_string().as_str())
        );
        assert_eq!(
            response.bytes().await.unwrap().as_ref(),
            *bytes,
            "{accept:?}"
        );
    }
    // Images are not looked up (and carry no Vary).
    let png = get(&base, "/logo.png", Some("br")).await;
    assert!(png.headers().get("content-encoding").is_none());
    assert!(png.headers().get("vary").is_none());
    assert_eq!(png.bytes().await.unwrap().as_ref(), b"png");
    // A sibling older than its file (rebuilt without precompressing) is never sent.
    let sibling_modified = std::fs::metadata(dist.join("app-1_bg.wasm.br"))
        .unwrap()
        .modified()
        .unwrap();
    let file = std::fs::File::options()
        .write(true)
        .open(dist.join("app-1_bg.wasm"))
        .unwrap();
    file.set_modified(sibling_modified + Duration::from_secs(60))
        .unwrap();
    drop(file);
    let response = get(&base, "/app-1_bg.wasm", Some("br, gzip")).await;
    assert!(response.headers().get("content-encoding").is_none());
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"\0asm raw");
    let _ = std::fs::remove_dir_all(dist);
}
