//! Error bodies, in each provider's shape (docs/stream-formats.md §7 and the HTTP errors of
//! api.openai.com / api.anthropic.com).

use serde_json::json;

use crate::profile::OverflowStyle;
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
    /// 401 whose message echoes the request's key headers (the `echo_key` fault).
    KeyEchoed(String),
    /// 400: the prompt does not fit the context window.
    ContextOverflow(Overflow),
}

/// A prompt that does not fit: the numbers each server's message states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// Whose rule and words.
    pub style: OverflowStyle,
    /// The context window, tokens.
    pub context_tokens: u32,
    /// The prompt, tokens.
    pub prompt_tokens: u32,
    /// The request's output cap, if it set one.
    pub max_tokens: Option<u32>,
}

impl Overflow {
    /// The overflow of a request, if it is one, by the rule of its server: vLLM and OpenAI
    /// refuse prompt + max_tokens > window (vLLM `serving_engine` input validation;
    /// OpenAI `context_length_exceeded`); llama.cpp refuses prompt >= n_ctx (it needs one
    /// free cell to decode; `server-context.cpp`, `slot.task->n_tokens() >= slot.n_ctx`) and
    /// stops generation at the window instead; Anthropic (the messages route) refuses
    /// prompt > window ("prompt is too long").
    pub fn check(
        style: OverflowStyle,
        dialect: Dialect,
        context_tokens: u32,
        prompt_tokens: u32,
        max_tokens: Option<u32>,
    ) -> Option<Self> {
        let prompt = u64::from(prompt_tokens);
        let window = u64::from(context_tokens);
        let requested = prompt + u64::from(max_tokens.unwrap_or(0));
        let overflows = match (dialect, style) {
            (Dialect::Messages, _) => prompt > window,
            (_, OverflowStyle::LlamaCpp) => prompt >= window,
            (_, OverflowStyle::OpenAi | OverflowStyle::Vllm) => requested > window,
        };
        overflows.then_some(Self {
            style,
            context_tokens,
            prompt_tokens,
            max_tokens,
        })
    }

    /// The 400 body in `dialect`'s shape and the style's words.
    fn body(&self, dialect: Dialect) -> String {
        let (window, prompt) = (self.context_tokens, self.prompt_tokens);
        let output = self.max_tokens.unwrap_or(0);
        let total = u64::from(prompt) + u64::from(output);
        if dialect == Dialect::Messages {
            // Anthropic's invalid_request_error for an over-long prompt.
            return anthropic(
                "invalid_request_error",
                &format!("prompt is too long: {prompt} tokens > {window} maximum"),
            );
        }
        match self.style {
            // vLLM's VLLMValidationError as served (vllm/entrypoints/openai serving_engine
            // input validation, recent releases): type BadRequestError, integer code 400.
            OverflowStyle::Vllm => json!({"error": {
                "message": format!(
                    "This model's maximum context length is {window} tokens. However, you \
                     requested {output} output tokens and your prompt contains at least \
                     {prompt} input tokens, for a total of at least {total} tokens. Please \
                     reduce the length of the input prompt or the number of requested output \
                     tokens. (parameter=input_tokens, value={prompt})"
                ),
                "type": "BadRequestError",
                "param": "input_tokens",
                "code": 400,
            }})
            .to_string(),
            // llama.cpp server: format_error_response(ERROR_TYPE_EXCEED_CONTEXT_SIZE) plus
            // n_prompt_tokens and n_ctx (server_task_result_error::to_json).
            OverflowStyle::LlamaCpp => json!({"error": {
                "code": 400,
                "message": format!(
                    "request ({prompt} tokens) exceeds the available context size ({window} \
                     tokens), try increasing it"
                ),
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": window,
            }})
            .to_string(),
            OverflowStyle::OpenAi => {
                let (message, param) = match (dialect, self.max_tokens) {
                    (Dialect::Responses, _) => (
                        "Your input exceeds the context window of this model. Please adjust \
                         your input and try again."
                            .to_string(),
                        "input",
                    ),
                    (_, Some(max_tokens)) => (
                        format!(
                            "This model's maximum context length is {window} tokens. However, \
                             you requested {total} tokens ({prompt} in the messages, \
                             {max_tokens} in the completion). Please reduce the length of the \
                             messages or completion."
                        ),
                        "messages",
                    ),
                    (_, None) => (
                        format!(
                            "This model's maximum context length is {window} tokens. However, \
                             your messages resulted in {prompt} tokens. Please reduce the \
                             length of the messages."
                        ),
                        "messages",
                    ),
                };
                json!({"error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "param": param,
                    "code": "context_length_exceeded",
                }})
                .to_string()
            }
        }
    }
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest(_) => 400,
            Self::MissingKey | Self::WrongKey | Self::WrongHeaderStyle | Self::KeyEchoed(_) => 401,
            Self::ContextOverflow(_) => 400,
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
            Self::KeyEchoed(message) => {
                if anthropic_dialect {
                    anthropic("authentication_error", message)
                } else {
                    openai(message, "invalid_request_error", Some("invalid_api_key"))
                }
            }
            Self::ContextOverflow(overflow) => overflow.body(dialect),
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

/// The page nginx serves when its upstream fails (the `html_error` fault's 502 body).
pub const BAD_GATEWAY_HTML: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n\
<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n\
</body>\r\n</html>\r\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn body_json(error: &ApiError, dialect: Dialect) -> serde_json::Value {
        serde_json::from_str(&error.body(dialect)).unwrap_or_default()
    }

    #[test]
    fn overflow_rules_table() {
        use OverflowStyle::*;
        // (style, dialect, window, prompt, max_tokens, overflows)
        type Row = (OverflowStyle, Dialect, u32, u32, Option<u32>, bool);
        let table: &[Row] = &[
            (OpenAi, Dialect::Chat, 100, 90, Some(10), false),
            (OpenAi, Dialect::Chat, 100, 90, Some(11), true),
            (OpenAi, Dialect::Chat, 100, 101, None, true),
            (Vllm, Dialect::Chat, 100, 100, None, false),
            (Vllm, Dialect::Chat, 100, 95, Some(6), true),
            (LlamaCpp, Dialect::Chat, 100, 99, Some(1000), false),
            (LlamaCpp, Dialect::Chat, 100, 100, None, true),
            (Vllm, Dialect::Messages, 100, 100, Some(1000), false),
            (Vllm, Dialect::Messages, 100, 101, None, true),
        ];
        for (style, dialect, window, prompt, max_tokens, overflows) in table {
            assert_eq!(
                Overflow::check(*style, *dialect, *window, *prompt, *max_tokens).is_some(),
                *overflows,
                "{style:?} {dialect:?} {window} {prompt} {max_tokens:?}"
            );
        }
    }

    #[test]
    fn overflow_bodies_carry_the_numbers() {
        let overflow = |style, max_tokens| {
            ApiError::ContextOverflow(Overflow {
                style,
                context_tokens: 8192,
                prompt_tokens: 10407,
                max_tokens,
            })
        };
        let vllm = body_json(&overflow(OverflowStyle::Vllm, Some(16)), Dialect::Chat);
        assert_eq!(vllm["error"]["code"], 400);
        assert_eq!(vllm["error"]["type"], "BadRequestError");
        let message = vllm["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("This model's maximum context length is 8192 tokens. However, you requested 16 output tokens and your prompt contains at least 10407 input tokens, for a total of at least 10423 tokens."), "{message}");
        let llama = body_json(&overflow(OverflowStyle::LlamaCpp, None), Dialect::Chat);
        assert_eq!(
            llama,
            json!({"error": {"code": 400, "message": "request (10407 tokens) exceeds the available context size (8192 tokens), try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 10407, "n_ctx": 8192}})
        );
        let openai = body_json(&overflow(OverflowStyle::OpenAi, Some(100)), Dialect::Chat);
        assert_eq!(openai["error"]["code"], "context_length_exceeded");
        assert!(openai["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("you requested 10507 tokens (10407 in the messages, 100 in the completion)"));
        let anthropic = body_json(&overflow(OverflowStyle::OpenAi, None), Dialect::Messages);
        assert_eq!(
            anthropic["error"]["message"],
            "prompt is too long: 10407 tokens > 8192 maximum"
        );
    }
}
