//! The Resource (who measured: the page, the browser, the network) and ids and time.

use serde::{Deserialize, Serialize};

use super::json::Attributes;
use super::names::{attr, DEFAULT_SERVICE_NAME};
use super::options::OtlpError;
use ttft_core::cut::prefix_within;

/// Longest user agent kept (longer ones are cut; real ones are under 300 bytes).
const MAX_USER_AGENT_BYTES: usize = 512;
/// Longest short fact kept (a brand, a platform, a language, an origin, a name).
const MAX_FACT_BYTES: usize = 256;
/// Most brands kept.
const MAX_BRANDS: usize = 8;

/// `navigator.connection` (Network Information API; Chromium only), as the glue read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectionFacts {
    /// `effectiveType`: `slow-2g`, `2g`, `3g` or `4g`.
    pub effective_type: Option<String>,
    /// `rtt`, ms (the browser rounds it to 25 ms).
    pub rtt_ms: Option<f64>,
    /// `downlink`, Mbit/s.
    pub downlink_mbps: Option<f64>,
    /// `type`: `wifi`, `ethernet`, `cellular`, `none`, … (Chromium on Android and ChromeOS).
    pub connection_type: Option<String>,
}

/// What the page knows about where it runs, read by the glue from `navigator`, `location`
/// and `crossOriginIsolated`. Never the key, never what the user typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceFacts {
    /// `service.name`; empty means [`DEFAULT_SERVICE_NAME`].
    pub service_name: String,
    /// `service.version`: the TTFT Meter version.
    pub service_version: String,
    /// `service.instance.id`: a random id (UUID v4) made once per page session.
    pub service_instance_id: String,
    /// `location.origin`.
    pub page_origin: String,
    /// `navigator.userAgent`.
    pub user_agent: String,
    /// `navigator.userAgentData.brands` as "Name Version" strings (empty where the browser
    /// has no client hints: Firefox, Safari).
    pub brands: Vec<String>,
    /// `navigator.userAgentData.platform`.
    pub platform: Option<String>,
    /// `navigator.userAgentData.mobile`.
    pub mobile: Option<bool>,
    /// `navigator.language`.
    pub language: Option<String>,
    /// `navigator.connection`, where the browser has it.
    pub connection: Option<ConnectionFacts>,
    /// `crossOriginIsolated`.
    pub cross_origin_isolated: bool,
}

/// `text` cut to at most `max_bytes` bytes at a character boundary.
pub(crate) fn cut(text: &str, max_bytes: usize) -> String {
    prefix_within(text, max_bytes).to_owned()
}

/// A browser as named by its user agent string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserName {
    /// `user_agent.name`: `Chrome`, `Edge`, `Opera`, `Firefox`, `Safari`, `HeadlessChrome`.
    pub name: String,
    /// `user_agent.version`, e.g. `156.0.0.0`.
    pub version: String,
    /// The rendering engine: `blink`, `gecko` or `webkit`.
    pub engine: &'static str,
}

/// The version that follows `token` (`Chrome/` → `156.0.0.0`).
fn version_after<'a>(user_agent: &'a str, token: &str) -> Option<&'a str> {
    let start = user_agent.find(token)? + token.len();
    let version = user_agent[start..]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .next()?;
    (!version.is_empty()).then_some(version)
}

/// The browser's name, version and engine from `navigator.userAgent`; `None` for strings that
/// name none of the usual browsers. Order matters: Edge and Opera also say `Chrome/`, Chrome
/// also says `Safari/`, and every iOS browser runs WebKit whatever its name.
pub fn browser_from_user_agent(user_agent: &str) -> Option<BrowserName> {
    let ios = user_agent.contains("iPhone") || user_agent.contains("iPad");
    let candidates: [(&str, &str, &str); 8] = [
        ("Edg/", "Edge", "blink"),
        ("OPR/", "Opera", "blink"),
        ("HeadlessChrome/", "HeadlessChrome", "blink"),
        ("CriOS/", "Chrome", "webkit"),
        ("FxiOS/", "Firefox", "webkit"),
        ("Firefox/", "Firefox", "gecko"),
        ("Chrome/", "Chrome", "blink"),
        ("Version/", "Safari", "webkit"),
    ];
    candidates.iter().find_map(|(token, name, engine)| {
        let version = version_after(user_agent, token)?;
        if *name == "Safari" && !user_agent.contains("Safari/") {
            return None;
        }
        Some(BrowserName {
            name: (*name).to_owned(),
            version: version.to_owned(),
            engine: if ios { "webkit" } else { engine },
        })
    })
}

/// `network.connection.type` from `navigator.connection.type`: the conventions' values are
/// `wifi`, `wired`, `cell`, `unavailable` and `unknown`.
pub fn connection_type(navigator_type: &str) -> &'static str {
    match navigator_type {
        "wifi" => "wifi",
        "ethernet" => "wired",
        "cellular" => "cell",
        "none" => "unavailable",
        _ => "unknown",
    }
}

impl ResourceFacts {
    /// The effective connection type, if the browser gave a sane one.
    pub(crate) fn effective_type(&self) -> Option<String> {
        self.connection
            .as_ref()
            .and_then(|connection| connection.effective_type.as_deref())
            .filter(|value| value.len() <= 16 && !value.is_empty())
            .map(str::to_owned)
    }

    /// The Resource's attributes.
    pub(crate) fn attributes(&self) -> Result<Attributes, OtlpError> {
        if self.service_instance_id.trim().is_empty() {
            return Err(OtlpError::MissingInstanceId);
        }
        let service_name = match self.service_name.trim() {
            "" => DEFAULT_SERVICE_NAME,
            name => name,
        };
        let mut attributes = Attributes::new();
        attributes
            .str(attr::SERVICE_NAME, cut(service_name, MAX_FACT_BYTES))
            .str(
                attr::SERVICE_VERSION,
                cut(&self.service_version, MAX_FACT_BYTES),
            )
            .str(
                attr::SERVICE_INSTANCE_ID,
                cut(self.service_instance_id.trim(), MAX_FACT_BYTES),
            );
        let brands: Vec<String> = self
            .brands
            .iter()
            .take(MAX_BRANDS)
            .map(|brand| cut(brand, MAX_FACT_BYTES))
            .collect();
        if brands.is_empty() {
            // browser.md, note 5: the user agent only where client hints are missing.
            attributes.str(
                attr::USER_AGENT_ORIGINAL,
                cut(&self.user_agent, MAX_USER_AGENT_BYTES),
            );
        } else {
            attributes.set(
                attr::BROWSER_BRANDS,
                super::json::AttrValue::StrArray(brands),
            );
        }
        attributes
            .opt_str(
                attr::BROWSER_PLATFORM,
                self.platform
                    .as_deref()
                    .map(|value| cut(value, MAX_FACT_BYTES))
                    .as_deref(),
            )
            .opt_bool(attr::BROWSER_MOBILE, self.mobile)
            .opt_str(
                attr::BROWSER_LANGUAGE,
                self.language
                    .as_deref()
                    .map(|value| cut(value, MAX_FACT_BYTES))
                    .as_deref(),
            );
        if let Some(browser) = browser_from_user_agent(&self.user_agent) {
            attributes
                .str(attr::USER_AGENT_NAME, browser.name)
                .str(attr::USER_AGENT_VERSION, cut(&browser.version, 64))
                .str(attr::BROWSER_ENGINE, browser.engine);
        }
        if let Some(connection) = &self.connection {
            attributes
                .opt_str(
                    attr::NETWORK_CONNECTION_TYPE,
                    connection.connection_type.as_deref().map(connection_type),
                )
                .opt_str(
                    attr::NETWORK_EFFECTIVE_TYPE,
                    self.effective_type().as_deref(),
                );
            if let Some(rtt_ms) = connection.rtt_ms.filter(|rtt| rtt.is_finite()) {
                attributes.int(attr::NETWORK_RTT_MS, rtt_ms.round() as i64);
            }
            attributes.double(attr::NETWORK_DOWNLINK_MBPS, connection.downlink_mbps);
        }
        attributes
            .str(attr::PAGE_ORIGIN, cut(&self.page_origin, MAX_FACT_BYTES))
            .bool(attr::CROSS_ORIGIN_ISOLATED, self.cross_origin_isolated);
        Ok(attributes)
    }
}

/// The page clock's zero on the wall clock: `performance.timeOrigin` (unix ms, fractional).
/// Every page-clock instant of a run becomes `time_origin_unix_ms + page_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WallClock {
    /// `performance.timeOrigin`, ms since the unix epoch.
    pub time_origin_unix_ms: f64,
}

impl WallClock {
    /// Unix nanoseconds of a page-clock instant; `None` for non-finite input or an instant
    /// before 1970. The whole milliseconds of the origin are added as integers, so only the
    /// two fractional parts go through floating point (exact to well under a microsecond).
    pub fn unix_nanos(&self, page_ms: f64) -> Option<u64> {
        if !self.time_origin_unix_ms.is_finite() || !page_ms.is_finite() {
            return None;
        }
        let origin_whole_ms = self.time_origin_unix_ms.trunc();
        let fraction_ms = self.time_origin_unix_ms - origin_whole_ms + page_ms;
        let nanos = origin_whole_ms as i128 * 1_000_000 + (fraction_ms * 1e6).round() as i128;
        u64::try_from(nanos).ok()
    }
}

/// A W3C / OTLP trace id: 16 random bytes, not all zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceId([u8; 16]);

/// A span id: 8 random bytes, not all zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpanId([u8; 8]);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

impl TraceId {
    /// From random bytes (`crypto.getRandomValues` in the glue); all zeros is invalid.
    pub fn from_bytes(bytes: [u8; 16]) -> Result<TraceId, OtlpError> {
        if bytes.iter().all(|byte| *byte == 0) {
            return Err(OtlpError::ZeroId { what: "trace id" });
        }
        Ok(TraceId(bytes))
    }

    /// Lowercase hex, 32 characters: the OTLP/JSON and W3C form.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

impl SpanId {
    /// From random bytes; all zeros is invalid.
    pub fn from_bytes(bytes: [u8; 8]) -> Result<SpanId, OtlpError> {
        if bytes.iter().all(|byte| *byte == 0) {
            return Err(OtlpError::ZeroId { what: "span id" });
        }
        Ok(SpanId(bytes))
    }

    /// Lowercase hex, 16 characters.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

/// The ids of one run's span, made by the glue before the request (so an opt-in
/// `traceparent` header can name the same span).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RunIds {
    /// The trace.
    pub trace_id: TraceId,
    /// The run's span.
    pub span_id: SpanId,
}

impl RunIds {
    /// The W3C Trace Context `traceparent` header value naming this span as the parent of
    /// the server's work: version `00`, flags `01` (sampled).
    pub fn traceparent(&self) -> String {
        format!("00-{}-{}-01", self.trace_id.to_hex(), self.span_id.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_are_named_from_real_user_agents() {
        let cases = [
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36", "Chrome", "156.0.0.0", "blink"),
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.7390.54 Safari/537.36", "HeadlessChrome", "156.0.7390.54", "blink"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51", "Edge", "124.0.2478.51", "blink"),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox", "128.0", "gecko"),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", "Safari", "17.4", "webkit"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1", "Chrome", "124.0.6367.88", "webkit"),
        ];
        for (user_agent, name, version, engine) in cases {
            let browser = browser_from_user_agent(user_agent).unwrap();
            assert_eq!(
                (
                    browser.name.as_str(),
                    browser.version.as_str(),
                    browser.engine
                ),
                (name, version, engine)
            );
        }
        assert_eq!(browser_from_user_agent("curl/8.0"), None);
    }

    #[test]
    fn wall_clock_nanos_are_exact_to_the_microsecond() {
        let clock = WallClock {
            time_origin_unix_ms: 1_764_000_000_123.5,
        };
        assert_eq!(clock.unix_nanos(1000.25), Some(1_764_000_001_123_750_000));
        assert_eq!(clock.unix_nanos(f64::NAN), None);
        assert_eq!(
            WallClock {
                time_origin_unix_ms: 0.0
            }
            .unix_nanos(-1.0),
            None
        );
    }

    #[test]
    fn ids_are_lowercase_hex_and_never_zero() {
        let ids = RunIds {
            trace_id: TraceId::from_bytes([0xAB; 16]).unwrap(),
            span_id: SpanId::from_bytes([1, 2, 3, 4, 5, 6, 7, 0xFF]).unwrap(),
        };
        assert_eq!(
            ids.traceparent(),
            "00-abababababababababababababababab-01020304050607ff-01"
        );
        assert!(TraceId::from_bytes([0; 16]).is_err());
        assert!(SpanId::from_bytes([0; 8]).is_err());
    }

    #[test]
    fn navigator_connection_types_map_to_the_conventions_values() {
        assert_eq!(connection_type("ethernet"), "wired");
        assert_eq!(connection_type("cellular"), "cell");
        assert_eq!(connection_type("bluetooth"), "unknown");
    }
}
