//! Error bodies, in each provider's shape (docs/stream-formats.md §7 and the HTTP errors of
//! api.openai.com / api.anthropic.com).

use serde_json::json;

use crate::request::Dialect;

/// OpenAI's `{"error":{message,type,param,code}}`.
pub fn openai(message: &str, error_type: &str, code: Option<&str>) -> String {
    json!({"error": {"message": message, "type": error_type, "param": null, "code": code}})
        .to_string()
}

/// Anthropic's `{"type":"error","error":{type,message}}`.
pub fn anthropic(error_type: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": error_type, "message": message}}).to_string()
}

/// A failure answered before streaming, independent of dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiError {
    /// 400: the body or an option was refused.
    BadRequest(String),
    /// 401: key missing.
    MissingKey,
    /// 401: key wrong.
    WrongKey,
    /// 401: the key came in the other dialect's header.
    WrongHeaderStyle,
    /// 403.
    Forbidden,
    /// 404: unknown model (the name as sent).
    ModelNotFound(String),
    /// 429 with `Retry-After` seconds.
    RateLimited(u32),
    /// 500.
    ServerError,
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest(_) => 400,
            Self::MissingKey | Self::WrongKey | Self::WrongHeaderStyle => 401,
            Self::Forbidden => 403,
            Self::ModelNotFound(_) => 404,
            Self::RateLimited(_) => 429,
            Self::ServerError => 500,
        }
    }

    /// The JSON body in `dialect`'s shape.
    pub fn body(&self, dialect: Dialect) -> String {
        let anthropic_dialect = dialect == Dialect::Messages;
        match self {
            Self::BadRequest(message) => {
                if anthropic_dialect {
                    anthropic("invalid_request_error", message)
                } else {
                    openai(message, "invalid_request_error", None)
                }
            }
            Self::MissingKey => {
                if anthropic_dialect {
                    anthropic("authentication_error", "x-api-key header is required")
                } else {
                    openai(
                        "You didn't provide an API key. You need to provide your API key in an \
                         Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                        "invalid_request_error",
                        None,
                    )
                }
            }
            Self::WrongKey => {
                if anthropic_dialect {
                    anthropic("authentication_error", "invalid x-api-key")
                } else {
                    openai(
                        "Incorrect API key provided. You can find your API key at \
                         https://platform.openai.com/account/api-keys.",
                        "invalid_request_error",
                        Some("invalid_api_key"),
                    )
                }
            }
            Self::WrongHeaderStyle => {
                if anthropic_dialect {
                    anthropic(
                        "authentication_error",
                        "x-api-key header is required: this is the Anthropic Messages API, which \
                         expects `x-api-key: YOUR_KEY`, but the request sent `Authorization: \
                         Bearer` (OpenAI style)",
                    )
                } else {
                    openai(
                        "You didn't provide an API key in the Authorization header: this is an \
                         OpenAI-style API, which expects `Authorization: Bearer YOUR_KEY`, but \
                         the request sent `x-api-key` (Anthropic style).",
                        "invalid_request_error",
                        Some("invalid_api_key"),
                    )
                }
            }
            Self::Forbidden => {
                if anthropic_dialect {
                    anthropic(
                        "permission_error",
                        "Your API key does not have permission to use the specified resource.",
                    )
                } else {
                    openai(
                        "Country, region, or territory not supported",
                        "request_forbidden",
                        Some("unsupported_country_region_territory"),
                    )
                }
            }
            Self::ModelNotFound(model) => {
                if anthropic_dialect {
                    anthropic("not_found_error", &format!("model: {model}"))
                } else {
                    openai(
                        &format!(
                            "The model `{model}` does not exist or you do not have access to it."
                        ),
                        "invalid_request_error",
                        Some("model_not_found"),
                    )
                }
            }
            Self::RateLimited(retry_after_s) => {
                if anthropic_dialect {
                    anthropic(
                        "rate_limit_error",
                        "Number of requests has exceeded your per-minute rate limit (simulated).",
                    )
                } else {
                    openai(
                        &format!(
                            "Rate limit reached for requests (simulated). Please try again in \
                             {retry_after_s}s."
                        ),
                        "requests",
                        Some("rate_limit_exceeded"),
                    )
                }
            }
            Self::ServerError => {
                if anthropic_dialect {
                    anthropic("api_error", "Internal server error")
                } else {
                    openai(
                        "The server had an error while processing your request. Sorry about that!",
                        "server_error",
                        None,
                    )
                }
            }
        }
    }
}

/// OpenAI's 404 for a path it does not serve, e.g. `Invalid URL (POST /v1/chat/completion)`.
pub fn invalid_url(method: &str, path: &str) -> String {
    openai(
        &format!("Invalid URL ({method} {path})"),
        "invalid_request_error",
        None,
    )
}
