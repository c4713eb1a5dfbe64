//! The diagnosis in words, English and Simplified Chinese: what happened and what to do,
//! for every [`Cause`] and [`NetworkHint`].

use super::cause::{Cause, Diagnosis, NetworkHint};
use crate::lang::Lang;
use crate::protocol::AuthStyle;

/// Picks the text for a language.
fn tr(lang: Lang, en: &str, zh: &str) -> String {
    lang.pick(en, zh).to_owned()
}

/// Header name of an auth style, for messages.
fn header_name(style: AuthStyle) -> &'static str {
    match style {
        AuthStyle::Bearer => "Authorization: Bearer",
        AuthStyle::XApiKey => "x-api-key",
    }
}

impl NetworkHint {
    /// One line explaining this likely reason and what to check.
    pub fn text(self, lang: Lang) -> String {
        match self {
            NetworkHint::TraceContextNotAllowed => tr(
                lang,
                "This run sent a traceparent header (trace context is on). A server whose CORS settings do not allow that header refuses the request before it starts; turn off trace context and run again to see whether this is the reason.",
                "本次运行发送了 traceparent 请求头（已开启追踪上下文）。如果服务器的 CORS 设置不允许该请求头，请求在开始前就会被拒绝；请关闭追踪上下文后再运行一次，看是否是这个原因。",
            ),
            NetworkHint::MixedContent => tr(
                lang,
                "This page is https and the endpoint is plain http: the browser blocks such calls (mixed content). Use an https endpoint, or open this tool over http / locally.",
                "本页面是 https，而接口是 http：浏览器会拦截这种请求（混合内容）。请使用 https 接口，或通过 http / 本地打开本工具。",
            ),
            NetworkHint::LocalServerNotRunning => tr(
                lang,
                "The local server is not running, or listens on another port or address (check the port, and that it listens on 127.0.0.1, not only another interface).",
                "本地服务没有运行，或监听在其他端口或地址上（检查端口，以及它是否监听 127.0.0.1）。",
            ),
            NetworkHint::LocalServerOrigins => tr(
                lang,
                "The local server does not allow this page's origin (CORS). For Ollama, add this page's origin to OLLAMA_ORIGINS and restart it.",
                "本地服务不允许本页面的来源（CORS）。Ollama 需要把本页面的来源加入 OLLAMA_ORIGINS 并重启。",
            ),
            NetworkHint::ProviderBlocksBrowserCalls => tr(
                lang,
                "This provider does not reliably allow calls straight from a browser (CORS). Go through a proxy that adds CORS headers, such as LiteLLM.",
                "该服务商不能稳定支持浏览器直接调用（CORS）。请通过会添加 CORS 头的代理（如 LiteLLM）调用。",
            ),
            NetworkHint::AnthropicBrowserAccessDisabled => tr(
                lang,
                "Anthropic only answers browsers when the organisation allows direct browser access; an organisation can disable it (\"CORS requests are not allowed for this Organization\").",
                "Anthropic 只有在组织允许浏览器直连时才响应浏览器请求；组织可以关闭此功能（“CORS requests are not allowed for this Organization”）。",
            ),
            NetworkHint::ErrorWithoutCorsHeaders => tr(
                lang,
                "OpenAI allows browser calls, but some of its error answers lack CORS headers, so an HTTP error (bad key, unknown model) can look like a network failure. Check the key and model.",
                "OpenAI 允许浏览器调用，但部分错误响应缺少 CORS 头，因此 HTTP 错误（密钥错误、模型不存在）可能表现为网络错误。请检查密钥和模型。",
            ),
            NetworkHint::CorsNotAllowed => tr(
                lang,
                "The server may not allow calls from other web pages (no CORS headers). The browser console shows a CORS message if so; enable CORS on the server or use a proxy.",
                "服务器可能不允许其他网页调用（没有 CORS 头）。如果是这样，浏览器控制台会显示 CORS 提示；请在服务器上开启 CORS 或使用代理。",
            ),
            NetworkHint::ServerUnreachable => tr(
                lang,
                "The server may be down, or the host name or port may be wrong.",
                "服务器可能已宕机，或主机名、端口填写错误。",
            ),
            NetworkHint::ProxyOrVpn => tr(
                lang,
                "A system proxy, VPN or local proxy tool in between may have failed; try with it turned off, or check its log.",
                "中间的系统代理、VPN 或本地代理工具可能出错；请关闭后重试，或查看其日志。",
            ),
        }
    }
}

impl Cause {
    /// What happened, without the provider's quote.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Cause::KeyMissing => tr(lang, "The server answered 401: no API key was sent, and this server requires one.", "服务器返回 401：没有发送 API 密钥，而该服务器需要密钥。"),
            Cause::KeyRefused => tr(lang, "The server answered 401: the API key was refused.", "服务器返回 401：API 密钥被拒绝。"),
            Cause::KeyHasWhitespace => tr(lang, "The API key contains a space or line break, so it cannot be sent as typed.", "API 密钥中含有空格或换行，无法按原样发送。"),
            Cause::KeyHasInvalidCharacter => tr(lang, "The API key contains a character that cannot be sent in an HTTP header (a typographic quote or an invisible character copied from a document).", "API 密钥中含有无法放入 HTTP 请求头的字符（从文档中复制来的弯引号或不可见字符）。"),
            Cause::WrongAuthHeader { sent, expected } => match lang {
                Lang::En => format!("The server answered 401 about the key header: the key was sent as {}, but this server expects {}.", header_name(*sent), header_name(*expected)),
                Lang::Zh => format!("服务器返回 401，指出密钥请求头不对：密钥以 {} 发送，但该服务器需要 {}。", header_name(*sent), header_name(*expected)),
            },
            Cause::Forbidden => tr(lang, "The server answered 403: the key is valid but not allowed to do this.", "服务器返回 403：密钥有效，但无权执行此操作。"),
            Cause::BrowserAccessRefused => tr(lang, "The provider refuses requests made directly from a browser for this account or organisation (a setting on their side, not a wrong key).", "服务商拒绝该账户或组织从浏览器直接发起的请求（这是服务商一侧的设置，不是密钥错误）。"),
            Cause::ModelNotFound => tr(lang, "The server does not know this model name (or the key has no access to it).", "服务器不认识这个模型名称（或该密钥无权使用它）。"),
            Cause::WrongPath => tr(lang, "The server answered 404 for the address itself: the base URL or path is wrong.", "服务器对该地址返回 404：基础 URL 或路径不对。"),
            Cause::BadRequest => tr(lang, "The server answered 400: it refused the request body.", "服务器返回 400：它拒绝了请求内容。"),
            Cause::RequestTimeout => tr(lang, "The server answered 408: it gave up waiting for the request.", "服务器返回 408：等待请求超时。"),
            Cause::PayloadTooLarge => tr(lang, "The server answered 413: the request is too large (prompt too long for this server or a proxy in front of it).", "服务器返回 413：请求过大（提示词对该服务器或其前面的代理来说太长）。"),
            Cause::Unprocessable => tr(lang, "The server answered 422: a field of the request was not accepted.", "服务器返回 422：请求中的某个字段未被接受。"),
            Cause::RateLimited { quota_exhausted: true, .. } => tr(lang, "The server answered 429: the account is out of quota or credit.", "服务器返回 429：账户额度或余额已用完。"),
            Cause::RateLimited { retry_after_s, quota_exhausted: false } => match (lang, retry_after_s) {
                (Lang::En, Some(s)) => format!("The server answered 429: too many requests. It asks to retry after {s:.0} s."),
                (Lang::En, None) => "The server answered 429: too many requests.".to_owned(),
                (Lang::Zh, Some(s)) => format!("服务器返回 429：请求过多。它要求 {s:.0} 秒后重试。"),
                (Lang::Zh, None) => "服务器返回 429：请求过多。".to_owned(),
            },
            Cause::Overloaded { status } => match lang {
                Lang::En => format!("The provider is overloaded (status {status}); this is on their side."),
                Lang::Zh => format!("服务商过载（状态码 {status}），问题在服务商一侧。"),
            },
            Cause::ServerError { status } => match lang {
                Lang::En => format!("The server answered {status}: an error on the server side."),
                Lang::Zh => format!("服务器返回 {status}：服务器端出错。"),
            },
            Cause::OtherHttpStatus { status } => match lang {
                Lang::En => format!("The server answered with status {status}."),
                Lang::Zh => format!("服务器返回状态码 {status}。"),
            },
            Cause::ContextOverflow { window_tokens, requested_tokens } => {
                let numbers = match (window_tokens, requested_tokens, lang) {
                    (Some(w), Some(r), Lang::En) => format!(": it needs {r} tokens, the window is {w}"),
                    (Some(w), None, Lang::En) => format!(": the window is {w} tokens"),
                    (None, Some(r), Lang::En) => format!(": it needs {r} tokens"),
                    (Some(w), Some(r), Lang::Zh) => format!("：需要 {r} 个 token，窗口为 {w}"),
                    (Some(w), None, Lang::Zh) => format!("：窗口为 {w} 个 token"),
                    (None, Some(r), Lang::Zh) => format!("：需要 {r} 个 token"),
                    (None, None, _) => String::new(),
                };
                match lang {
                    Lang::En => format!("The prompt and the output limit do not fit the model's context window{numbers}."),
                    Lang::Zh => format!("提示词加上输出上限超出了模型的上下文窗口{numbers}。"),
                }
            }
            Cause::NotAnApi { status } => match lang {
                Lang::En => format!("The server answered {status} to the request: this URL is a web or file server (a static host answers like this), not an LLM API."),
                Lang::Zh => format!("服务器对请求返回了 {status}：该 URL 是网页或文件服务器（静态托管会这样回应），而不是 LLM API。"),
            },
            Cause::NotAnEventStream { content_type } => match lang {
                Lang::En => format!("The server answered successfully but not with a stream (content-type \"{content_type}\"): it ignored stream: true, or this address serves a web page rather than the API."),
                Lang::Zh => format!("服务器返回成功，但不是流式响应（content-type 为“{content_type}”）：它忽略了 stream: true，或该地址是网页而不是 API。"),
            },
            Cause::TraceContextRefused => tr(lang, "The server refuses the traceparent header in CORS: the request with it failed before any answer, and the same request without it was answered.", "服务器在 CORS 中拒绝了 traceparent 请求头：带该请求头的请求在得到任何响应前就失败了，而不带它的同一请求得到了响应。"),
            Cause::ConnectionFailed { hints } => {
                let intro = tr(lang, "The request failed before any answer could be read (the browser reports only \"failed to fetch\"). Likely reasons:", "请求在读到任何响应前就失败了（浏览器只报告“failed to fetch”）。可能的原因：");
                let lines: Vec<String> = hints.iter().map(|h| format!("\n• {}", h.text(lang))).collect();
                format!("{intro}{}", lines.concat())
            }
            Cause::Timeout { after_ms, headers_received } => {
                let seconds = after_ms.map(|ms| ms / 1000.0);
                match (lang, seconds, headers_received) {
                    (Lang::En, Some(s), false) => format!("No answer after {s:.0} s: the server had not even sent its headers. A long prompt's prefill, or a queue on the server, can take this long."),
                    (Lang::En, Some(s), true) => format!("The run timed out after {s:.0} s: the server accepted the request but the stream stalled or was slow. A long prompt's prefill can take this long before the first token."),
                    (Lang::En, None, _) => "The run timed out. A long prompt's prefill, or a queue on the server, can take longer than the timeout.".to_owned(),
                    (Lang::Zh, Some(s), false) => format!("{s:.0} 秒后仍无响应：服务器连响应头都还没发送。长提示词的预填充（prefill）或服务器排队可能需要这么久。"),
                    (Lang::Zh, Some(s), true) => format!("运行在 {s:.0} 秒后超时：服务器已接受请求，但流停滞或太慢。长提示词在首个 token 之前的预填充（prefill）可能需要这么久。"),
                    (Lang::Zh, None, _) => "运行超时。长提示词的预填充（prefill）或服务器排队可能超过超时时间。".to_owned(),
                }
            }
            Cause::Aborted => tr(lang, "The run was stopped.", "运行已被停止。"),
            Cause::Redirected => tr(lang, "The server redirected the request to another address. The page does not follow redirects: the key was not sent to the new address, and the run stopped there.", "服务器把请求重定向到了另一个地址。本页面不跟随重定向：密钥没有发送到新地址，运行就此停止。"),
            Cause::MidStreamError { error_kind } => match (lang, error_kind) {
                (Lang::En, Some(kind)) => format!("The stream started (HTTP 200) and then the provider reported an error ({kind})."),
                (Lang::En, None) => "The stream started (HTTP 200) and then the provider reported an error.".to_owned(),
                (Lang::Zh, Some(kind)) => format!("流已开始（HTTP 200），随后服务商报告了错误（{kind}）。"),
                (Lang::Zh, None) => "流已开始（HTTP 200），随后服务商报告了错误。".to_owned(),
            },
            Cause::MalformedChunk { detail } => match lang {
                Lang::En => format!("A chunk of the stream was not what the selected protocol sends ({detail}). Naive clients crash here with \"Cannot read properties of undefined (reading 'choices')\": an error object, or a chunk with empty choices, read as a normal chunk."),
                Lang::Zh => format!("流中的某个数据块不是所选协议应发送的格式（{detail}）。简单的客户端会在这里崩溃，报 “Cannot read properties of undefined (reading 'choices')”：把错误对象或 choices 为空的数据块当成普通数据块读取。"),
            },
            Cause::EmptyStream => tr(lang, "The stream ended without any text.", "流结束了，但没有任何文本。"),
            Cause::EndedWithoutTerminal => tr(lang, "The stream stopped before its end marker: the connection was cut (network drop, proxy or server timeout) or the server crashed.", "流在结束标记之前中断：连接被切断（网络中断、代理或服务器超时）或服务器崩溃。"),
        }
    }

    /// What to do about it.
    pub fn fix(&self, lang: Lang) -> String {
        match self {
            Cause::KeyMissing => tr(lang, "Enter the API key for this provider.", "请填写该服务商的 API 密钥。"),
            Cause::KeyRefused => tr(lang, "Check that the key belongs to this provider and endpoint, is not revoked, and was copied whole with no spaces or line breaks.", "请确认密钥属于该服务商和接口、没有被吊销，并且完整复制、不含空格或换行。"),
            Cause::KeyHasWhitespace | Cause::KeyHasInvalidCharacter => tr(lang, "Paste the key again as one line, copied straight from the provider's console, without spaces or line breaks.", "请从服务商控制台直接复制密钥并重新粘贴，保持为一行，不含空格或换行。"),
            Cause::WrongAuthHeader { expected, .. } => match (lang, expected) {
                (Lang::En, AuthStyle::XApiKey) => "Choose the Anthropic Messages protocol (or the x-api-key header style) for this endpoint.".to_owned(),
                (Lang::En, AuthStyle::Bearer) => "Choose an OpenAI protocol (or the Authorization: Bearer header style) for this endpoint.".to_owned(),
                (Lang::Zh, AuthStyle::XApiKey) => "请为该接口选择 Anthropic Messages 协议（或 x-api-key 请求头方式）。".to_owned(),
                (Lang::Zh, AuthStyle::Bearer) => "请为该接口选择 OpenAI 协议（或 Authorization: Bearer 请求头方式）。".to_owned(),
            },
            Cause::BrowserAccessRefused => tr(lang, "Use a key from an organisation that allows browser access (ask the provider's support), or call through a proxy such as LiteLLM.", "请使用允许浏览器访问的组织的密钥（可联系服务商支持），或通过 LiteLLM 等代理调用。"),
            Cause::Forbidden => tr(lang, "Check the key's permissions and project, whether your account can use this model, and whether the provider serves your region.", "请检查密钥的权限和所属项目、账户是否可以使用该模型，以及服务商是否支持你所在的地区。"),
            Cause::ModelNotFound => tr(lang, "Check the model name's spelling against the provider's model list (the Model field suggests the names this endpoint lists at /models).", "请对照服务商的模型列表检查模型名称拼写（“模型”输入框会提示该接口 /models 列出的名称）。"),
            Cause::WrongPath => tr(lang, "Check the base URL: most servers want it to end in /v1 (https://host/v1); do not paste the full /chat/completions path.", "请检查基础 URL：多数服务器要求以 /v1 结尾（https://host/v1）；不要粘贴完整的 /chat/completions 路径。"),
            Cause::BadRequest => tr(lang, "Read the server's message: usually a parameter this model does not support (max_tokens vs max_completion_tokens, reasoning options, stream_options).", "请阅读服务器的提示：通常是该模型不支持的参数（max_tokens 与 max_completion_tokens、推理选项、stream_options）。"),
            Cause::RequestTimeout => tr(lang, "Retry; if it repeats, check proxies in between and the server's request timeout.", "请重试；如果反复出现，请检查中间的代理和服务器的请求超时设置。"),
            Cause::PayloadTooLarge => tr(lang, "Use a shorter prompt, or raise the body size limit of the server or proxy.", "请使用更短的提示词，或调高服务器或代理的请求体大小限制。"),
            Cause::Unprocessable => tr(lang, "Read the server's message for the field it rejected; compatible servers often reject options they do not know (turn off stream_options or reasoning options).", "请根据服务器提示找到被拒绝的字段；兼容服务器常拒绝不认识的选项（关闭 stream_options 或推理选项）。"),
            Cause::RateLimited { quota_exhausted: true, .. } => tr(lang, "Add credit or raise the quota in the provider's console, or use another key.", "请在服务商控制台充值或提高额度，或换用其他密钥。"),
            Cause::RateLimited { retry_after_s, .. } => match (lang, retry_after_s) {
                (Lang::En, Some(s)) => format!("Wait {s:.0} s, then run again with fewer runs per minute or lower concurrency."),
                (Lang::En, None) => "Wait a little, then run again with fewer runs per minute or lower concurrency.".to_owned(),
                (Lang::Zh, Some(s)) => format!("请等待 {s:.0} 秒后再运行，并降低每分钟运行次数或并发数。"),
                (Lang::Zh, None) => "请稍等后再运行，并降低每分钟运行次数或并发数。".to_owned(),
            },
            Cause::Overloaded { .. } => tr(lang, "Retry later; the provider's load is the cause, not your settings. Such runs measure their queue, not your network.", "请稍后重试；原因是服务商负载，而非你的设置。这类运行测到的是其排队时间，而不是你的网络。"),
            Cause::ServerError { .. } => tr(lang, "Retry; if it repeats, check the server's logs or the provider's status page.", "请重试；如果反复出现，请查看服务器日志或服务商的状态页面。"),
            Cause::OtherHttpStatus { .. } => tr(lang, "Read the server's message, and check the base URL and protocol.", "请阅读服务器的提示，并检查基础 URL 和协议。"),
            Cause::ContextOverflow { .. } => tr(lang, "Shorten the prompt or lower max_tokens (the prompt plus max_tokens must fit the window), or choose a model or server setting with a larger context (llama.cpp: --ctx-size; vLLM: --max-model-len).", "请缩短提示词或调低 max_tokens（提示词加 max_tokens 必须放得进窗口），或选用上下文更大的模型或服务器设置（llama.cpp：--ctx-size；vLLM：--max-model-len）。"),
            Cause::NotAnApi { .. } => tr(lang, "Set the base URL to the API's address (for example https://api.openai.com/v1 or http://localhost:8000/v1), or pick a preset; the page's own address is an API only when ttft-sim serves it.", "请把基础 URL 设为 API 的地址（例如 https://api.openai.com/v1 或 http://localhost:8000/v1），或选择一个预设；只有由 ttft-sim 提供页面时，页面自身的地址才是 API。"),
            Cause::NotAnEventStream { .. } => tr(lang, "Check that the base URL points at the API (usually ending in /v1) and that the selected protocol matches the server.", "请确认基础 URL 指向 API（通常以 /v1 结尾），并且所选协议与服务器一致。"),
            Cause::TraceContextRefused => tr(lang, "Turn off trace context (the \"Send traceparent\" checkbox, or traceparent=1 in the page address), or allow the header on the server: add traceparent and tracestate to its CORS allowed headers (vLLM: --allowed-headers; a gateway or proxy: its CORS settings).", "请关闭追踪上下文（“发送 traceparent”复选框，或页面地址中的 traceparent=1），或在服务器上允许该请求头：把 traceparent 和 tracestate 加入其 CORS 允许的请求头（vLLM：--allowed-headers；网关或代理：其 CORS 设置）。"),
            Cause::ConnectionFailed { .. } => tr(lang, "Open the browser console (F12) to see whether it reports CORS or a refused connection, then check the reasons above.", "请打开浏览器控制台（F12）查看报告的是 CORS 还是连接被拒绝，然后逐一检查上述原因。"),
            Cause::Timeout { .. } => tr(lang, "Raise the timeout for long prompts, or shorten the prompt; if short prompts also time out, the server is queueing or stalled.", "长提示词请调高超时时间，或缩短提示词；如果短提示词也超时，说明服务器在排队或卡住了。"),
            Cause::Aborted => tr(lang, "Run again when ready; what was measured before the stop is kept.", "准备好后可再次运行；停止前测到的数据已保留。"),
            Cause::Redirected => tr(lang, "Check the base URL: a redirect usually means http instead of https, a missing or extra path segment, or a login page or proxy in front of the API. If the new address is right, type it as the base URL (the page then asks before sending the key there).", "请检查基础 URL：重定向通常意味着用了 http 而不是 https、路径多了或少了一段，或 API 前面有登录页或代理。如果新地址是对的，请把它填为基础 URL（页面会在向其发送密钥前先询问）。"),
            Cause::MidStreamError { .. } => tr(lang, "Retry; if it repeats, try another model or a shorter prompt. The times measured before the error are kept.", "请重试；如果反复出现，请换一个模型或缩短提示词。出错前测到的时间已保留。"),
            Cause::MalformedChunk { .. } => tr(lang, "Check that the selected protocol matches the server (OpenAI Chat, Anthropic Messages or OpenAI Responses), and look at the raw stream in the log.", "请确认所选协议与服务器一致（OpenAI Chat、Anthropic Messages 或 OpenAI Responses），并查看日志中的原始流。"),
            Cause::EmptyStream => tr(lang, "Check the model name and max tokens (a reasoning model can spend the whole budget thinking without showing text), and that the protocol matches the server.", "请检查模型名称和最大 token 数（推理模型可能把全部额度用于思考而不输出文本），以及协议是否与服务器一致。"),
            Cause::EndedWithoutTerminal => tr(lang, "Retry; if it repeats, check proxy and server timeouts (idle timeouts cut long streams). The times measured before the cut are kept.", "请重试；如果反复出现，请检查代理和服务器的超时设置（空闲超时会切断长时间的流）。中断前测到的时间已保留。"),
        }
    }
}

impl Diagnosis {
    /// What happened, for the user, quoting the provider when it said something.
    pub fn message(&self, lang: Lang) -> String {
        let base = self.cause.message(lang);
        match (&self.provider_message, lang) {
            (Some(quote), Lang::En) => format!("{base} The server said: \"{quote}\""),
            (Some(quote), Lang::Zh) => format!("{base}服务器原话：“{quote}”"),
            (None, _) => base,
        }
    }

    /// What to do about it.
    pub fn fix(&self, lang: Lang) -> String {
        self.cause.fix(lang)
    }
}
