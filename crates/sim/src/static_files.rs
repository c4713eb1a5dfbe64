//! Serving the built page (`--dist DIR`), cross-origin isolated, under a strict
//! Content-Security-Policy, with precompressed files as static hosts serve them.
//!
//! Written by hand rather than with tower-http's `ServeDir` because every response needs the
//! isolation and CSP headers (the script hashes come from the served file) and the routing
//! falls through from the API paths; the whole job is a path check, a file read, an
//! `Accept-Encoding` choice and a MIME table.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::config::CspConfig;

/// MIME type by file extension (`application/wasm` matters: streaming compilation needs it).
fn mime_type(path: &Path) -> &'static str {
    match extension(path).as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Whether precompressed `.br` / `.gz` siblings are looked for (the types that compress:
/// text and wasm; images and fonts are compressed already). scripts/precompress.mjs writes
/// them for the same list.
pub fn compressible(path: &Path) -> bool {
    matches!(
        extension(path).as_str(),
        "html"
            | "htm"
            | "js"
            | "mjs"
            | "wasm"
            | "css"
            | "json"
            | "map"
            | "webmanifest"
            | "svg"
            | "txt"
            | "xml"
    )
}

/// Whether `path` is an HTML document.
pub fn is_html(path: &Path) -> bool {
    matches!(extension(path).as_str(), "html" | "htm")
}

/// Whether `path` is the app's page (an `index.html`): the documents the page's CSP covers.
pub fn is_app_page(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case("index.html"))
}

/// The file a URL path names inside `dist`, or `None` if the path tries to leave it.
pub fn resolve(dist: &Path, url_path: &str) -> Option<PathBuf> {
    let mut path = dist.to_path_buf();
    for segment in url_path.split('/').filter(|s| !s.is_empty()) {
        if segment == "." || segment == ".." || segment.contains('\\') || segment.contains('\0') {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

/// A content coding the server can send from a precompressed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `.br` beside the file.
    Brotli,
    /// `.gz` beside the file.
    Gzip,
}

impl Encoding {
    /// The `Content-Encoding` value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Brotli => "br",
            Self::Gzip => "gzip",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Self::Brotli => "br",
            Self::Gzip => "gz",
        }
    }
}

/// The codings an `Accept-Encoding` value accepts, best first (highest q; brotli before
/// gzip on a tie; `*` covers both; `q=0` refuses). No header: none (identity), as static
/// hosts do.
fn accepted_encodings(accept_encoding: Option<&str>) -> Vec<Encoding> {
    let Some(header) = accept_encoding else {
        return Vec::new();
    };
    let mut brotli_q = None;
    let mut gzip_q = None;
    let mut any_q = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .find_map(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0);
        match coding.as_str() {
            "br" => brotli_q = Some(q),
            "gzip" | "x-gzip" => gzip_q = Some(q),
            "*" => any_q = Some(q),
            _ => {}
        }
    }
    let brotli = brotli_q.or(any_q).unwrap_or(0.0);
    let gzip = gzip_q.or(any_q).unwrap_or(0.0);
    let mut accepted: Vec<(f64, Encoding)> = [(brotli, Encoding::Brotli), (gzip, Encoding::Gzip)]
        .into_iter()
        .filter(|(q, _)| *q > 0.0)
        .collect();
    // Stable: brotli stays first on a tie.
    accepted.sort_by(|a, b| b.0.total_cmp(&a.0));
    accepted.into_iter().map(|(_, e)| e).collect()
}

/// A file to send.
#[derive(Debug)]
pub struct StaticFile {
    /// The bytes as sent (compressed when `encoding` is set).
    pub bytes: Vec<u8>,
    /// The file's own MIME type.
    pub mime: &'static str,
    /// The coding of `bytes`, if precompressed.
    pub encoding: Option<Encoding>,
    /// The uncompressed file, on disk (what CSP hashes and the header choice look at).
    pub path: PathBuf,
}

async fn modified(path: &Path) -> Option<SystemTime> {
    tokio::fs::metadata(path).await.ok()?.modified().ok()
}

/// Reads the file for `url_path` (a directory means its `index.html`), preferring a
/// precompressed sibling that `accept_encoding` accepts and that is not older than the file.
pub async fn read(
    dist: &Path,
    url_path: &str,
    accept_encoding: Option<&str>,
) -> Option<StaticFile> {
    let mut path = resolve(dist, url_path)?;
    if tokio::fs::metadata(&path).await.ok()?.is_dir() {
        path.push("index.html");
    }
    let mime = mime_type(&path);
    if compressible(&path) {
        let original_modified = modified(&path).await?;
        for encoding in accepted_encodings(accept_encoding) {
            let mut sibling = path.clone().into_os_string();
            sibling.push(".");
            sibling.push(encoding.suffix());
            let sibling = PathBuf::from(sibling);
            // A stale sibling (the page was rebuilt without precompressing) is ignored.
            if modified(&sibling)
                .await
                .is_some_and(|m| m >= original_modified)
            {
                if let Ok(bytes) = tokio::fs::read(&sibling).await {
                    return Some(StaticFile {
                        bytes,
                        mime,
                        encoding: Some(encoding),
                        path,
                    });
                }
            }
        }
    }
    let bytes = tokio::fs::read(&path).await.ok()?;
    Some(StaticFile {
        bytes,
        mime,
        encoding: None,
        path,
    })
}

/// The text of every inline `<script>` (no `src`) of an HTML document, in order: what a
/// CSP hash covers is exactly the text between `<script ...>` and `</script>`.
fn inline_scripts(html: &str) -> Vec<&str> {
    let lower = html.to_ascii_lowercase();
    let mut scripts = Vec::new();
    let mut from = 0;
    while let Some(start) = lower[from..].find("<script").map(|i| i + from) {
        let Some(tag_end) = lower[start..].find('>').map(|i| i + start) else {
            break;
        };
        let tag = &lower[start..tag_end];
        let Some(close) = lower[tag_end..].find("</script").map(|i| i + tag_end) else {
            break;
        };
        let has_src = tag
            .split(|c: char| c.is_whitespace())
            .any(|attribute| attribute.starts_with("src=") || attribute == "src");
        if !has_src {
            scripts.push(&html[tag_end + 1..close]);
        }
        from = close;
    }
    scripts
}

/// `'sha256-…'` of one inline script.
fn script_hash(script: &str) -> String {
    let digest = Sha256::digest(script.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy, with `script_hashes` allowed as inline scripts.
///
/// - `script-src 'self' 'wasm-unsafe-eval'`: the app's module script and wasm, plus the
///   hashes of Trunk's inline loader; no `'unsafe-inline'`, no `'unsafe-eval'`.
/// - `style-src 'self'`: the stylesheet only (style attributes in markup are refused;
///   styles set through the CSSOM from script are not affected).
/// - `connect-src`: by default `'self' http: https:`, as the page must reach any endpoint
///   its user types (and the OTLP collector); a deployer who knows the endpoints narrows it.
/// - `frame-ancestors`: who may frame the page (embedding); see `--csp-frame-ancestors`.
pub fn content_security_policy(csp: &CspConfig, script_hashes: &[String]) -> String {
    let mut script_src = String::from("'self' 'wasm-unsafe-eval'");
    for hash in script_hashes {
        script_src.push(' ');
        script_src.push_str(hash);
    }
    format!(
        "default-src 'self'; script-src {script_src}; style-src 'self'; \
         img-src 'self' data: blob:; connect-src {connect}; worker-src 'self'; \
         frame-ancestors {ancestors}; base-uri 'self'; form-action 'self'; object-src 'none'",
        connect = csp.connect_src,
        ancestors = csp.frame_ancestors,
    )
}

/// The policy for the HTML document `html` (hashes of its inline scripts).
pub fn policy_for_page(csp: &CspConfig, html: &str) -> String {
    let hashes: Vec<String> = inline_scripts(html).into_iter().map(script_hash).collect();
    content_security_policy(csp, &hashes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_table() {
        assert_eq!(mime_type(Path::new("a/app_bg.wasm")), "application/wasm");
        assert_eq!(
            mime_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
        assert_eq!(
            mime_type(Path::new("app.JS")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(mime_type(Path::new("noext")), "application/octet-stream");
        assert!(compressible(Path::new("a.wasm")) && !compressible(Path::new("a.png")));
    }

    #[test]
    fn paths_stay_inside_dist() {
        let dist = Path::new("/srv/dist");
        assert_eq!(resolve(dist, "/"), Some(PathBuf::from("/srv/dist")));
        assert_eq!(
            resolve(dist, "/pkg/app.js"),
            Some(PathBuf::from("/srv/dist/pkg/app.js"))
        );
        assert_eq!(resolve(dist, "/../etc/passwd"), None);
        assert_eq!(resolve(dist, "/a/./b"), None);
    }

    #[test]
    fn accept_encoding_table() {
        use Encoding::*;
        let table: &[(Option<&str>, &[Encoding])] = &[
            (None, &[]),
            (Some(""), &[]),
            (Some("identity"), &[]),
            (Some("gzip, deflate, br, zstd"), &[Brotli, Gzip]),
            (Some("gzip"), &[Gzip]),
            (Some("br;q=0, gzip"), &[Gzip]),
            (Some("br;q=0.5, gzip;q=0.8"), &[Gzip, Brotli]),
            (Some("*"), &[Brotli, Gzip]),
            (Some("*;q=0.1, br;q=0"), &[Gzip]),
            (Some("GZIP;Q=1"), &[Gzip]),
        ];
        for (header, expected) in table {
            assert_eq!(&accepted_encodings(*header), expected, "{header:?}");
        }
    }

    #[test]
    fn inline_scripts_and_their_hashes() {
        let html = "<html><head><script type=\"module\">import init from './a.js';\n</script>\
                    <SCRIPT src=\"./b.js\"></SCRIPT><script>x()</script></head></html>";
        assert_eq!(
            inline_scripts(html),
            vec!["import init from './a.js';\n", "x()"]
        );
        // Known answer: printf 'x()' | openssl dgst -sha256 -binary | base64
        assert_eq!(
            script_hash("x()"),
            "'sha256-D6IGS8VMvCoyaR/l0h9tERrBTATY01CoPS7l6xDv0kI='"
        );
        let policy = policy_for_page(&CspConfig::default(), html);
        assert!(
            policy.starts_with("default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-")
        );
        assert!(policy.contains("frame-ancestors 'self' http://127.0.0.1:* http://localhost:* https://127.0.0.1:* https://localhost:*"));
        assert!(!policy.contains("unsafe-inline"));
    }
}
