//! The relay's own answers: refusals and upstream failures, each a JSON body in the shape
//! providers use (`{"error":{"message","type"}}`) and an `X-TTFT-Relay-Error: <kind>`
//! header, so the page can tell the relay's refusal from the provider's.

use http::StatusCode;

/// Every way the relay answers by itself (docs/relay.md's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Absolute-form, authority-form, `CONNECT`, a path outside the base, a foreign `Host`.
    ForbiddenTarget,
    /// A method the relay does not forward (only GET, HEAD, POST and the preflight).
    ForbiddenMethod,
    /// An `Origin` not allowed.
    ForbiddenOrigin,
    /// The request body over its bound.
    BodyTooLarge,
    /// The request head over its bound.
    HeadTooLarge,
    /// The upstream's name did not resolve.
    UpstreamDns,
    /// TCP connect refused or unreachable.
    UpstreamConnect,
    /// The TLS handshake failed.
    UpstreamTls,
    /// No response headers in time.
    UpstreamTimeout,
    /// The connection dropped before the response headers (or, mid-stream, after them).
    UpstreamReset,
}

impl ErrorKind {
    /// The kind on the wire (`X-TTFT-Relay-Error`, the body's `type`, the stream's
    /// `upstream-error=` line).
    pub fn name(self) -> &'static str {
        match self {
            Self::ForbiddenTarget | Self::ForbiddenMethod => "forbidden-target",
            Self::ForbiddenOrigin => "forbidden-origin",
            Self::BodyTooLarge | Self::HeadTooLarge => "too-large",
            Self::UpstreamDns => "upstream-dns",
            Self::UpstreamConnect => "upstream-connect",
            Self::UpstreamTls => "upstream-tls",
            Self::UpstreamTimeout => "upstream-timeout",
            Self::UpstreamReset => "upstream-reset",
        }
    }

    /// The status it is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            Self::ForbiddenTarget => StatusCode::BAD_REQUEST,
            Self::ForbiddenMethod => StatusCode::METHOD_NOT_ALLOWED,
            Self::ForbiddenOrigin => StatusCode::FORBIDDEN,
            Self::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::HeadTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Self::UpstreamDns | Self::UpstreamConnect | Self::UpstreamTls | Self::UpstreamReset => {
                StatusCode::BAD_GATEWAY
            }
            Self::UpstreamTimeout => StatusCode::GATEWAY_TIMEOUT,
        }
    }
}

/// A refusal or failure: its kind and a message for the user (never a request header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// What the user can do about it, after `ttft-relay: `.
    pub message: String,
}

impl RelayError {
    /// `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The JSON body: `{"error":{"message":"ttft-relay: …","type":"<kind>"}}`.
    pub fn body(&self) -> String {
        serde_json::json!({
            "error": {
                "message": format!("ttft-relay: {}", self.message),
                "type": self.kind.name(),
            }
        })
        .to_string()
    }

    /// The stream's line for a failure after the headers were sent.
    pub fn stream_line(kind: ErrorKind) -> String {
        format!(": ttft-relay upstream-error={}\n", kind.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_and_line_forms() {
        let error = RelayError::new(ErrorKind::UpstreamTls, "the TLS handshake failed");
        assert_eq!(
            error.body(),
            r#"{"error":{"message":"ttft-relay: the TLS handshake failed","type":"upstream-tls"}}"#
        );
        assert_eq!(error.kind.status(), StatusCode::BAD_GATEWAY);
        assert_eq!(
            RelayError::stream_line(ErrorKind::UpstreamReset),
            ": ttft-relay upstream-error=upstream-reset\n"
        );
        assert_eq!(ErrorKind::HeadTooLarge.status().as_u16(), 431);
        assert_eq!(ErrorKind::ForbiddenMethod.name(), "forbidden-target");
    }
}
