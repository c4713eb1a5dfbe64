//! The wire protocols the widget speaks, how each sends the key, and the protocol a base URL
//! implies. A leaf module: requests, diagnosis, records and the app all build on it.

use serde::{Deserialize, Serialize};

/// The wire protocol of the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// OpenAI Chat Completions (`/chat/completions`) and compatible servers.
    OpenAiChat,
    /// Anthropic Messages (`/messages`).
    AnthropicMessages,
    /// OpenAI Responses (`/responses`).
    OpenAiResponses,
}

impl Protocol {
    /// The route appended to the version base, without leading slash.
    pub fn route(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "chat/completions",
            Protocol::AnthropicMessages => "messages",
            Protocol::OpenAiResponses => "responses",
        }
    }

    /// The protocol's name as shown to users.
    pub fn label(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "OpenAI Chat Completions",
            Protocol::AnthropicMessages => "Anthropic Messages",
            Protocol::OpenAiResponses => "OpenAI Responses",
        }
    }

    /// Every protocol, in the order the form lists them.
    pub const ALL: [Protocol; 3] = [
        Protocol::OpenAiChat,
        Protocol::AnthropicMessages,
        Protocol::OpenAiResponses,
    ];

    /// The short code used in URLs, messages and `<select>` values: `chat`, `anthropic`,
    /// `responses`.
    pub fn code(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "chat",
            Protocol::AnthropicMessages => "anthropic",
            Protocol::OpenAiResponses => "responses",
        }
    }

    /// From a [`code`](Self::code); `None` for anything else.
    pub fn from_code(code: &str) -> Option<Protocol> {
        Protocol::ALL
            .into_iter()
            .find(|protocol| protocol.code() == code.trim())
    }

    /// The protocol a base URL implies: `anthropic` in it, or a path ending in `/messages`,
    /// is Anthropic Messages; a path ending in `/responses` is OpenAI Responses; anything
    /// else is OpenAI Chat Completions, which most servers speak. (The stream's dialect is
    /// detected separately, from the stream itself.)
    fn infer_from_url(base_url: &str) -> Protocol {
        let lower = base_url.to_ascii_lowercase();
        let path = lower.trim_end_matches('/');
        if lower.contains("anthropic") || path.ends_with("/messages") {
            Protocol::AnthropicMessages
        } else if path.ends_with("/responses") {
            Protocol::OpenAiResponses
        } else {
            Protocol::OpenAiChat
        }
    }

    /// The authentication header this protocol expects.
    pub fn default_auth_style(self) -> AuthStyle {
        match self {
            Protocol::OpenAiChat | Protocol::OpenAiResponses => AuthStyle::Bearer,
            Protocol::AnthropicMessages => AuthStyle::XApiKey,
        }
    }
}

/// How the key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthStyle {
    /// `Authorization: Bearer <key>` (OpenAI and compatible servers).
    Bearer,
    /// `x-api-key: <key>` (Anthropic).
    XApiKey,
}

/// The anthropic-version header value sent on every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Which protocol the user asked for: a fixed one, or `Auto` (inferred from the base URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ProtocolChoice {
    /// Infer it from the URL (`Protocol::infer_from_url`).
    #[default]
    Auto,
    /// This protocol.
    Fixed(Protocol),
}

impl ProtocolChoice {
    /// The protocol to use for `base_url`.
    pub fn resolve(self, base_url: &str) -> Protocol {
        match self {
            ProtocolChoice::Fixed(protocol) => protocol,
            ProtocolChoice::Auto => Protocol::infer_from_url(base_url),
        }
    }

    /// The code: `auto`, or the protocol's [`code`](Protocol::code).
    pub fn code(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "auto",
            ProtocolChoice::Fixed(protocol) => protocol.code(),
        }
    }

    /// From a code; anything unknown is `Auto`.
    pub fn from_code(code: &str) -> ProtocolChoice {
        Protocol::from_code(code).map_or(ProtocolChoice::Auto, ProtocolChoice::Fixed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for protocol in Protocol::ALL {
            assert_eq!(Protocol::from_code(protocol.code()), Some(protocol));
            let choice = ProtocolChoice::Fixed(protocol);
            assert_eq!(ProtocolChoice::from_code(choice.code()), choice);
        }
        assert_eq!(ProtocolChoice::from_code("auto"), ProtocolChoice::Auto);
        assert_eq!(ProtocolChoice::from_code("gopher"), ProtocolChoice::Auto);
    }

    #[test]
    fn auto_infers_from_the_url() {
        let cases = [
            ("https://api.anthropic.com", Protocol::AnthropicMessages),
            (
                "http://localhost:9000/v1/messages",
                Protocol::AnthropicMessages,
            ),
            (
                "https://api.openai.com/v1/responses/",
                Protocol::OpenAiResponses,
            ),
            ("https://api.openai.com/v1", Protocol::OpenAiChat),
            ("http://127.0.0.1:8080", Protocol::OpenAiChat),
        ];
        for (url, protocol) in cases {
            assert_eq!(ProtocolChoice::Auto.resolve(url), protocol, "{url}");
        }
        assert_eq!(
            ProtocolChoice::Fixed(Protocol::OpenAiResponses).resolve("https://api.anthropic.com"),
            Protocol::OpenAiResponses
        );
    }
}
