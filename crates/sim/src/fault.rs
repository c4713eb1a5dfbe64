//! Faults a request can ask for (`fault=NAME` in the model suffix or `x-sim-fault: NAME`).

/// One simulated failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// 400 with the dialect's invalid-request body.
    BadRequest,
    /// 401 with the dialect's authentication body.
    Unauthorized,
    /// 403 with the dialect's permission body.
    Forbidden,
    /// 404 model not found.
    NotFound,
    /// 429 with `Retry-After`.
    RateLimited,
    /// 500 server error.
    ServerError,
    /// HTTP 200, a few tokens, then the dialect's error event; no terminal marker.
    Midstream,
    /// HTTP 200 headers, then no byte at all until the client gives up.
    Stall,
    /// HTTP 200, a few tokens, then the connection is cut (no terminal marker).
    Drop,
    /// HTTP 200, a few tokens, one event whose data is invalid JSON, then the normal rest.
    Malformed,
    /// The normal stream without any CORS header, so a browser refuses it.
    NoCors,
}

impl Fault {
    /// The accepted names, in documentation order.
    pub const NAMES: &'static [&'static str] = &[
        "400",
        "401",
        "403",
        "404",
        "429",
        "500",
        "midstream",
        "stall",
        "drop",
        "malformed",
        "nocors",
    ];

    /// Parses a fault name.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "400" => Self::BadRequest,
            "401" => Self::Unauthorized,
            "403" => Self::Forbidden,
            "404" => Self::NotFound,
            "429" => Self::RateLimited,
            "500" => Self::ServerError,
            "midstream" => Self::Midstream,
            "stall" => Self::Stall,
            "drop" => Self::Drop,
            "malformed" => Self::Malformed,
            "nocors" => Self::NoCors,
            _ => return None,
        })
    }

    /// The HTTP status of a fault answered before any streaming, if it is one.
    pub fn status(self) -> Option<u16> {
        match self {
            Self::BadRequest => Some(400),
            Self::Unauthorized => Some(401),
            Self::Forbidden => Some(403),
            Self::NotFound => Some(404),
            Self::RateLimited => Some(429),
            Self::ServerError => Some(500),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses() {
        for name in Fault::NAMES {
            assert!(Fault::parse(name).is_some(), "{name}");
        }
        assert_eq!(Fault::parse("NOCORS"), Some(Fault::NoCors));
        assert_eq!(Fault::parse("418"), None);
    }
}
