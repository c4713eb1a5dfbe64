//! Serving the built page (`--dist DIR`), cross-origin isolated.
//!
//! Written by hand rather than with tower-http's `ServeDir` because every response needs the
//! isolation headers and the routing falls through from the API paths; the whole job is a
//! path check, a file read and a MIME table.

use std::path::{Path, PathBuf};

/// MIME type by file extension (`application/wasm` matters: streaming compilation needs it).
pub fn mime_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match extension.as_str() {
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

/// Reads the file for `url_path` (a directory means its `index.html`).
pub async fn read(dist: &Path, url_path: &str) -> Option<(Vec<u8>, &'static str)> {
    let mut path = resolve(dist, url_path)?;
    if tokio::fs::metadata(&path).await.ok()?.is_dir() {
        path.push("index.html");
    }
    let bytes = tokio::fs::read(&path).await.ok()?;
    Some((bytes, mime_type(&path)))
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
}
