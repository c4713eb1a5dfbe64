//! The catalogue of this crate's texts: one line per text, English then Simplified
//! Chinese (docs/DESIGN.md §4, "One shape for UI text"). Each is a `ttft_core::text::Text`.

crate::texts! {
    catalogue = crate::text::catalogue::CORE;
    BODY_ERROR_MISSING_MODEL =
        "Enter a model name.",
        "请填写模型名称。";
    BODY_ERROR_THINKING_BUDGET_NOT_BELOW_MAX_TOKENS =
        "Anthropic requires the thinking budget ({budget_tokens}) to be below max_tokens ({max_tokens}).",
        "Anthropic 要求思考预算（{budget_tokens}）小于 max_tokens（{max_tokens}）。";
    BODY_ERROR_THINKING_BUDGET_TOO_SMALL =
        "Anthropic requires a thinking budget of at least 1024 tokens (got {budget_tokens}).",
        "Anthropic 要求思考预算至少为 1024 个 token（当前为 {budget_tokens}）。";
    CAUSE_ABORTED =
        "The run was stopped.",
        "运行已被停止。";
    CAUSE_BAD_REQUEST =
        "The server answered 400: it refused the request body.",
        "服务器返回 400：它拒绝了请求内容。";
    CAUSE_BROWSER_ACCESS_REFUSED =
        "The provider refuses requests made directly from a browser for this account or organisation (a setting on their side, not a wrong key).",
        "服务商拒绝该账户或组织从浏览器直接发起的请求（这是服务商一侧的设置，不是密钥错误）。";
    CAUSE_CONNECTION_FAILED =
        "The request failed before any answer could be read (the browser reports only \"failed to fetch\"). Likely reasons:",
        "请求在读到任何响应前就失败了（浏览器只报告“failed to fetch”）。可能的原因：";
    /// `{numbers}`: one of the `CAUSE_CONTEXT_OVERFLOW_NEEDED…`/`…_WINDOW` fragments, or nothing.
    CAUSE_CONTEXT_OVERFLOW =
        "The prompt and the output limit do not fit the model's context window{numbers}.",
        "提示词加上输出上限超出了模型的上下文窗口{numbers}。";
    /// Filled into `CAUSE_CONTEXT_OVERFLOW` when only the tokens asked for are known.
    CAUSE_CONTEXT_OVERFLOW_NEEDED =
        ": it needs {requested} tokens",
        "：需要 {requested} 个 token";
    /// Filled into `CAUSE_CONTEXT_OVERFLOW` when both numbers are known.
    CAUSE_CONTEXT_OVERFLOW_NEEDED_AND_WINDOW =
        ": it needs {requested} tokens, the window is {window}",
        "：需要 {requested} 个 token，窗口为 {window}";
    /// Filled into `CAUSE_CONTEXT_OVERFLOW` when only the window is known.
    CAUSE_CONTEXT_OVERFLOW_WINDOW =
        ": the window is {window} tokens",
        "：窗口为 {window} 个 token";
    CAUSE_EMPTY_STREAM =
        "The stream ended without any text.",
        "流结束了，但没有任何文本。";
    CAUSE_ENDED_WITHOUT_TERMINAL =
        "The stream stopped before its end marker: the connection was cut (network drop, proxy or server timeout) or the server crashed.",
        "流在结束标记之前中断：连接被切断（网络中断、代理或服务器超时）或服务器崩溃。";
    CAUSE_FORBIDDEN =
        "The server answered 403: the key is valid but not allowed to do this.",
        "服务器返回 403：密钥有效，但无权执行此操作。";
    CAUSE_GATEWAY_CANNOT_CHECK_KEY =
        "The gateway answered 400 no_db_connection (\"No connected db.\"): it could not check this API key. LiteLLM's proxy without a database refuses every key except its master key this way; it is a key problem, not the request.",
        "网关返回 400 no_db_connection（“No connected db.”）：它无法校验这个 API 密钥。没有连接数据库的 LiteLLM 代理会这样拒绝除主密钥（master key）以外的所有密钥；这是密钥问题，不是请求内容的问题。";
    CAUSE_KEY_HAS_INVALID_CHARACTER =
        "The API key contains a character that cannot be sent in an HTTP header (a typographic quote or an invisible character copied from a document).",
        "API 密钥中含有无法放入 HTTP 请求头的字符（从文档中复制来的弯引号或不可见字符）。";
    CAUSE_KEY_HAS_WHITESPACE =
        "The API key contains a space or line break, so it cannot be sent as typed.",
        "API 密钥中含有空格或换行，无法按原样发送。";
    CAUSE_KEY_MISSING =
        "The server answered 401: no API key was sent, and this server requires one.",
        "服务器返回 401：没有发送 API 密钥，而该服务器需要密钥。";
    CAUSE_KEY_REFUSED =
        "The server answered 401: the API key was refused.",
        "服务器返回 401：API 密钥被拒绝。";
    CAUSE_MALFORMED_CHUNK =
        "A chunk of the stream was not what the selected protocol sends ({detail}). Naive clients crash here with \"Cannot read properties of undefined (reading 'choices')\": an error object, or a chunk with empty choices, read as a normal chunk.",
        "流中的某个数据块不是所选协议应发送的格式（{detail}）。简单的客户端会在这里崩溃，报 “Cannot read properties of undefined (reading 'choices')”：把错误对象或 choices 为空的数据块当成普通数据块读取。";
    CAUSE_MID_STREAM_ERROR =
        "The stream started (HTTP 200) and then the provider reported an error.",
        "流已开始（HTTP 200），随后服务商报告了错误。";
    CAUSE_MID_STREAM_ERROR_KIND =
        "The stream started (HTTP 200) and then the provider reported an error ({kind}).",
        "流已开始（HTTP 200），随后服务商报告了错误（{kind}）。";
    CAUSE_MODEL_NOT_FOUND =
        "The server does not know this model name (or the key has no access to it).",
        "服务器不认识这个模型名称（或该密钥无权使用它）。";
    CAUSE_NOT_AN_API =
        "The server answered {status} to the request: this URL is a web or file server (a static host answers like this), not an LLM API.",
        "服务器对请求返回了 {status}：该 URL 是网页或文件服务器（静态托管会这样回应），而不是 LLM API。";
    CAUSE_NOT_AN_EVENT_STREAM =
        "The server answered successfully but not with a stream (content-type \"{content_type}\"): it ignored stream: true, or this address serves a web page rather than the API.",
        "服务器返回成功，但不是流式响应（content-type 为“{content_type}”）：它忽略了 stream: true，或该地址是网页而不是 API。";
    CAUSE_OTHER_HTTP_STATUS =
        "The server answered with status {status}.",
        "服务器返回状态码 {status}。";
    CAUSE_OVERLOADED =
        "The provider is overloaded (status {status}); this is on their side.",
        "服务商过载（状态码 {status}），问题在服务商一侧。";
    CAUSE_PAYLOAD_TOO_LARGE =
        "The server answered 413: the request is too large (prompt too long for this server or a proxy in front of it).",
        "服务器返回 413：请求过大（提示词对该服务器或其前面的代理来说太长）。";
    CAUSE_QUOTA_EXHAUSTED =
        "The server answered 429: the account is out of quota or credit.",
        "服务器返回 429：账户额度或余额已用完。";
    CAUSE_RATE_LIMITED =
        "The server answered 429: too many requests.",
        "服务器返回 429：请求过多。";
    CAUSE_RATE_LIMITED_RETRY_AFTER =
        "The server answered 429: too many requests. It asks to retry after {seconds} s.",
        "服务器返回 429：请求过多。它要求 {seconds} 秒后重试。";
    CAUSE_REDIRECTED =
        "The server redirected the request to another address. The page does not follow redirects: the key was not sent to the new address, and the run stopped there.",
        "服务器把请求重定向到了另一个地址。本页面不跟随重定向：密钥没有发送到新地址，运行就此停止。";
    CAUSE_REQUEST_TIMEOUT =
        "The server answered 408: it gave up waiting for the request.",
        "服务器返回 408：等待请求超时。";
    CAUSE_SERVER_ERROR =
        "The server answered {status}: an error on the server side.",
        "服务器返回 {status}：服务器端出错。";
    CAUSE_TIMEOUT =
        "The run timed out. A long prompt's prefill, or a queue on the server, can take longer than the timeout.",
        "运行超时。长提示词的预填充（prefill）或服务器排队可能超过超时时间。";
    CAUSE_TIMEOUT_NO_HEADERS =
        "No answer after {seconds} s: the server had not even sent its headers. A long prompt's prefill, or a queue on the server, can take this long.",
        "{seconds} 秒后仍无响应：服务器连响应头都还没发送。长提示词的预填充（prefill）或服务器排队可能需要这么久。";
    CAUSE_TIMEOUT_STALLED =
        "The run timed out after {seconds} s: the server accepted the request but the stream stalled or was slow. A long prompt's prefill can take this long before the first token.",
        "运行在 {seconds} 秒后超时：服务器已接受请求，但流停滞或太慢。长提示词在首个 token 之前的预填充（prefill）可能需要这么久。";
    CAUSE_TRACE_CONTEXT_REFUSED =
        "The server refuses the traceparent header in CORS: the request with it failed before any answer, and the same request without it was answered.",
        "服务器在 CORS 中拒绝了 traceparent 请求头：带该请求头的请求在得到任何响应前就失败了，而不带它的同一请求得到了响应。";
    CAUSE_UNPROCESSABLE =
        "The server answered 422: a field of the request was not accepted.",
        "服务器返回 422：请求中的某个字段未被接受。";
    CAUSE_WRONG_AUTH_HEADER =
        "The server answered 401 about the key header: the key was sent as {sent}, but this server expects {expected}.",
        "服务器返回 401，指出密钥请求头不对：密钥以 {sent} 发送，但该服务器需要 {expected}。";
    CAUSE_WRONG_PATH =
        "The server answered 404 for the address itself: the base URL or path is wrong.",
        "服务器对该地址返回 404：基础 URL 或路径不对。";
    /// A diagnosis's message followed by the provider's own words.
    DIAGNOSIS_WITH_PROVIDER_QUOTE =
        "{message} The server said: \"{quote}\"",
        "{message}服务器原话：“{quote}”";
    FIX_ABORTED =
        "Run again when ready; what was measured before the stop is kept.",
        "准备好后可再次运行；停止前测到的数据已保留。";
    FIX_BAD_REQUEST =
        "Read the server's message: usually a parameter this model does not support (max_tokens vs max_completion_tokens, reasoning options, stream_options).",
        "请阅读服务器的提示：通常是该模型不支持的参数（max_tokens 与 max_completion_tokens、推理选项、stream_options）。";
    FIX_BROWSER_ACCESS_REFUSED =
        "Use a key from an organisation that allows browser access (ask the provider's support), or call through a proxy such as LiteLLM.",
        "请使用允许浏览器访问的组织的密钥（可联系服务商支持），或通过 LiteLLM 等代理调用。";
    FIX_CONNECTION_FAILED =
        "Open the browser console (F12) to see whether it reports CORS or a refused connection, then check the reasons above.",
        "请打开浏览器控制台（F12）查看报告的是 CORS 还是连接被拒绝，然后逐一检查上述原因。";
    FIX_CONTEXT_OVERFLOW =
        "Shorten the prompt or lower max_tokens (the prompt plus max_tokens must fit the window), or choose a model or server setting with a larger context (llama.cpp: --ctx-size; vLLM: --max-model-len).",
        "请缩短提示词或调低 max_tokens（提示词加 max_tokens 必须放得进窗口），或选用上下文更大的模型或服务器设置（llama.cpp：--ctx-size；vLLM：--max-model-len）。";
    FIX_EMPTY_STREAM =
        "Check the model name and max tokens (a reasoning model can spend the whole budget thinking without showing text), and that the protocol matches the server.",
        "请检查模型名称和最大 token 数（推理模型可能把全部额度用于思考而不输出文本），以及协议是否与服务器一致。";
    FIX_ENDED_WITHOUT_TERMINAL =
        "Retry; if it repeats, check proxy and server timeouts (idle timeouts cut long streams). The times measured before the cut are kept.",
        "请重试；如果反复出现，请检查代理和服务器的超时设置（空闲超时会切断长时间的流）。中断前测到的时间已保留。";
    FIX_FORBIDDEN =
        "Check the key's permissions and project, whether your account can use this model, and whether the provider serves your region.",
        "请检查密钥的权限和所属项目、账户是否可以使用该模型，以及服务商是否支持你所在的地区。";
    FIX_KEY_MALFORMED =
        "Paste the key again as one line, copied straight from the provider's console, without spaces or line breaks.",
        "请从服务商控制台直接复制密钥并重新粘贴，保持为一行，不含空格或换行。";
    FIX_KEY_MISSING =
        "Enter the API key for this provider.",
        "请填写该服务商的 API 密钥。";
    FIX_GATEWAY_CANNOT_CHECK_KEY =
        "Use the gateway's master key (LITELLM_MASTER_KEY), or give the gateway a database (DATABASE_URL) so that its virtual keys can be checked; then send again.",
        "请使用网关的主密钥（LITELLM_MASTER_KEY），或为网关配置数据库（DATABASE_URL）以便校验虚拟密钥；然后重新发送。";
    FIX_KEY_REFUSED =
        "Check that the key belongs to this provider and endpoint, is not revoked, and was copied whole with no spaces or line breaks.",
        "请确认密钥属于该服务商和接口、没有被吊销，并且完整复制、不含空格或换行。";
    FIX_MALFORMED_CHUNK =
        "Check that the selected protocol matches the server (OpenAI Chat, Anthropic Messages or OpenAI Responses), and look at the raw stream in the log.",
        "请确认所选协议与服务器一致（OpenAI Chat、Anthropic Messages 或 OpenAI Responses），并查看日志中的原始流。";
    FIX_MID_STREAM_ERROR =
        "Retry; if it repeats, try another model or a shorter prompt. The times measured before the error are kept.",
        "请重试；如果反复出现，请换一个模型或缩短提示词。出错前测到的时间已保留。";
    FIX_MODEL_NOT_FOUND =
        "Check the model name's spelling against the provider's model list (the Model field suggests the names this endpoint lists at /models).",
        "请对照服务商的模型列表检查模型名称拼写（“模型”输入框会提示该接口 /models 列出的名称）。";
    FIX_NOT_AN_API =
        "Set the base URL to the API's address (for example https://api.openai.com/v1 or http://localhost:8000/v1), or pick a preset; the page's own address is an API only when ttft-sim serves it.",
        "请把基础 URL 设为 API 的地址（例如 https://api.openai.com/v1 或 http://localhost:8000/v1），或选择一个预设；只有由 ttft-sim 提供页面时，页面自身的地址才是 API。";
    FIX_NOT_AN_EVENT_STREAM =
        "Check that the base URL points at the API (usually ending in /v1) and that the selected protocol matches the server.",
        "请确认基础 URL 指向 API（通常以 /v1 结尾），并且所选协议与服务器一致。";
    FIX_OTHER_HTTP_STATUS =
        "Read the server's message, and check the base URL and protocol.",
        "请阅读服务器的提示，并检查基础 URL 和协议。";
    FIX_OVERLOADED =
        "Retry later; the provider's load is the cause, not your settings. Such runs measure their queue, not your network.",
        "请稍后重试；原因是服务商负载，而非你的设置。这类运行测到的是其排队时间，而不是你的网络。";
    FIX_PAYLOAD_TOO_LARGE =
        "Use a shorter prompt, or raise the body size limit of the server or proxy.",
        "请使用更短的提示词，或调高服务器或代理的请求体大小限制。";
    FIX_QUOTA_EXHAUSTED =
        "Add credit or raise the quota in the provider's console, or use another key.",
        "请在服务商控制台充值或提高额度，或换用其他密钥。";
    FIX_RATE_LIMITED =
        "Wait a little, then run again with fewer runs per minute or lower concurrency.",
        "请稍等后再运行，并降低每分钟运行次数或并发数。";
    FIX_RATE_LIMITED_RETRY_AFTER =
        "Wait {seconds} s, then run again with fewer runs per minute or lower concurrency.",
        "请等待 {seconds} 秒后再运行，并降低每分钟运行次数或并发数。";
    FIX_REDIRECTED =
        "Check the base URL: a redirect usually means http instead of https, a missing or extra path segment, or a login page or proxy in front of the API. If the new address is right, type it as the base URL (the page then asks before sending the key there).",
        "请检查基础 URL：重定向通常意味着用了 http 而不是 https、路径多了或少了一段，或 API 前面有登录页或代理。如果新地址是对的，请把它填为基础 URL（页面会在向其发送密钥前先询问）。";
    FIX_REQUEST_TIMEOUT =
        "Retry; if it repeats, check proxies in between and the server's request timeout.",
        "请重试；如果反复出现，请检查中间的代理和服务器的请求超时设置。";
    FIX_SERVER_ERROR =
        "Retry; if it repeats, check the server's logs or the provider's status page.",
        "请重试；如果反复出现，请查看服务器日志或服务商的状态页面。";
    FIX_TIMEOUT =
        "Raise the timeout for long prompts, or shorten the prompt; if short prompts also time out, the server is queueing or stalled.",
        "长提示词请调高超时时间，或缩短提示词；如果短提示词也超时，说明服务器在排队或卡住了。";
    FIX_TRACE_CONTEXT_REFUSED =
        "Turn off trace context (the \"Send traceparent\" checkbox, or traceparent=1 in the page address), or allow the header on the server: add traceparent and tracestate to its CORS allowed headers (vLLM: --allowed-headers; a gateway or proxy: its CORS settings).",
        "请关闭追踪上下文（“发送 traceparent”复选框，或页面地址中的 traceparent=1），或在服务器上允许该请求头：把 traceparent 和 tracestate 加入其 CORS 允许的请求头（vLLM：--allowed-headers；网关或代理：其 CORS 设置）。";
    FIX_UNPROCESSABLE =
        "Read the server's message for the field it rejected; compatible servers often reject options they do not know (turn off stream_options or reasoning options).",
        "请根据服务器提示找到被拒绝的字段；兼容服务器常拒绝不认识的选项（关闭 stream_options 或推理选项）。";
    FIX_WRONG_AUTH_HEADER_BEARER =
        "Choose an OpenAI protocol (or the Authorization: Bearer header style) for this endpoint.",
        "请为该接口选择 OpenAI 协议（或 Authorization: Bearer 请求头方式）。";
    FIX_WRONG_AUTH_HEADER_X_API_KEY =
        "Choose the Anthropic Messages protocol (or the x-api-key header style) for this endpoint.",
        "请为该接口选择 Anthropic Messages 协议（或 x-api-key 请求头方式）。";
    FIX_WRONG_PATH =
        "Check the base URL: most servers want it to end in /v1 (https://host/v1); do not paste the full /chat/completions path.",
        "请检查基础 URL：多数服务器要求以 /v1 结尾（https://host/v1）；不要粘贴完整的 /chat/completions 路径。";
    HINT_ANTHROPIC_BROWSER_ACCESS_DISABLED =
        "Anthropic only answers browsers when the organisation allows direct browser access; an organisation can disable it (\"CORS requests are not allowed for this Organization\").",
        "Anthropic 只有在组织允许浏览器直连时才响应浏览器请求；组织可以关闭此功能（“CORS requests are not allowed for this Organization”）。";
    HINT_CORS_NOT_ALLOWED =
        "The server may not allow calls from other web pages (no CORS headers). The browser console shows a CORS message if so; enable CORS on the server or use a proxy.",
        "服务器可能不允许其他网页调用（没有 CORS 头）。如果是这样，浏览器控制台会显示 CORS 提示；请在服务器上开启 CORS 或使用代理。";
    CAUSE_RELAY_FORBIDDEN_TARGET =
        "TTFT Meter's relay refused the request: it forwards only to the provider it was started for, under that provider's path.",
        "TTFT Meter 的中继拒绝了请求：它只转发到启动时指定的服务商，且只限该服务商的路径之下。";
    CAUSE_RELAY_FORBIDDEN_ORIGIN =
        "TTFT Meter's relay refused this page: its origin is not one the relay allows.",
        "TTFT Meter 的中继拒绝了本页面：本页面的来源不在中继允许的列表中。";
    CAUSE_RELAY_TOO_LARGE =
        "TTFT Meter's relay refused the request: it is larger than the relay accepts.",
        "TTFT Meter 的中继拒绝了请求：请求超出了中继接受的大小。";
    CAUSE_RELAY_UPSTREAM_DNS =
        "The relay works, but it could not resolve the provider's host name (the provider's side of the relay failed, not this page's).",
        "中继工作正常，但它无法解析服务商的主机名（失败的是中继到服务商这一侧，不是本页面到中继）。";
    CAUSE_RELAY_UPSTREAM_CONNECT =
        "The relay works, but it could not connect to the provider (the provider's side of the relay failed, not this page's).",
        "中继工作正常，但它无法连接到服务商（失败的是中继到服务商这一侧，不是本页面到中继）。";
    CAUSE_RELAY_UPSTREAM_TLS =
        "The relay works, but its TLS handshake with the provider failed: it does not trust the provider's certificate.",
        "中继工作正常，但它与服务商的 TLS 握手失败：它不信任服务商的证书。";
    CAUSE_RELAY_UPSTREAM_TIMEOUT =
        "The relay works, but the provider sent no answer within the relay's time limit.",
        "中继工作正常，但服务商在中继的时限内没有应答。";
    CAUSE_RELAY_UPSTREAM_RESET =
        "The relay works, but the provider closed the connection before answering.",
        "中继工作正常，但服务商在应答前关闭了连接。";
    FIX_RELAY_LOCAL =
        "Better: let the server allow this page's origin (the reason above). Or run TTFT Meter's relay on your machine, which answers the browser's CORS check for it, then set the base URL to the one it prints (http://127.0.0.1:…):",
        "更好的办法：让服务允许本页面的来源（见上面的原因）。也可以在本机运行 TTFT Meter 的中继，由它替服务回应浏览器的 CORS 检查，然后把基础 URL 改为它打印出的地址（http://127.0.0.1:…）：";
    FIX_RELAY_FORBIDDEN_TARGET =
        "Use the base URL the relay printed when it started, unchanged; to measure another provider, start another relay for it.",
        "请原样使用中继启动时打印的基础 URL；要测量其他服务商，请为它另启动一个中继。";
    FIX_RELAY_FORBIDDEN_ORIGIN =
        "Restart the relay with --allow-origin and this page's origin (the relay allows http://127.0.0.1 and http://localhost pages by default).",
        "请带上 --allow-origin 和本页面的来源重新启动中继（中继默认只允许 http://127.0.0.1 和 http://localhost 的页面）。";
    FIX_RELAY_UPSTREAM_DNS =
        "Check the --upstream URL's host name, and that this machine resolves it (a VPN or proxy tool may have to be on).",
        "请检查 --upstream URL 中的主机名，并确认本机能解析它（可能需要开启 VPN 或代理工具）。";
    FIX_RELAY_UPSTREAM_CONNECT =
        "Check that this machine reaches the provider (try curl with the --upstream URL): a firewall, a proxy the relay does not use, or a wrong port.",
        "请确认本机能访问该服务商（用 curl 试一下 --upstream 的 URL）：可能是防火墙、中继没有使用的代理，或端口错误。";
    FIX_RELAY_UPSTREAM_TLS =
        "For a private CA or a test certificate, restart the relay with --ca-file and that CA's certificate; behind a company proxy that inspects TLS, pass its CA the same way.",
        "如果服务商使用私有 CA 或测试证书，请带上 --ca-file 和该 CA 的证书重新启动中继；如果公司代理会检查 TLS，也用同样方式传入它的 CA。";
    FIX_RELAY_UPSTREAM_TIMEOUT =
        "Retry; if it repeats, the provider is slow or unreachable from here (the relay's --upstream-timeout-ms sets the limit).",
        "请重试；如果反复出现，说明服务商很慢或从这里无法访问（中继的 --upstream-timeout-ms 设置该时限）。";
    HINT_CORS_REFUSED =
        "The server is up (it answered the page's check, a request without the key and without CORS), but it refused this page: no CORS headers on its answer or on its preflight. The key and the model were not checked yet.",
        "服务器在线（它回应了本页面的检查请求：一个不带密钥、不要求 CORS 的请求），但拒绝了本页面：它的响应或预检响应中没有 CORS 头。密钥和模型尚未被检查。";
    /// `{provider}`, `{standing}` (one of `CORS_STANDING_…`), `{checked}` (a date), `{source}`.
    PROVIDER_CORS_LINE =
        "{provider} {standing} (last reported {checked}: {source}).",
        "{provider}{standing}（最近一次报告 {checked}：{source}）。";
    CORS_STANDING_ALLOWS =
        "allows calls from web pages",
        "允许网页直接调用";
    CORS_STANDING_ALLOWS_FIXED_HEADERS =
        "allows calls from web pages with its own list of headers only (one extra header, such as an SDK's, makes it refuse)",
        "只允许带有其指定请求头的网页调用（多一个请求头，比如 SDK 加的，就会被拒绝）";
    CORS_STANDING_OPT_IN =
        "allows calls from web pages only with its opt-in header, and an organisation can turn them off",
        "仅在带有其专用请求头时允许网页调用，且组织可以关闭该功能";
    CORS_STANDING_REFUSES =
        "is reported to refuse calls from web pages",
        "据报告拒绝网页直接调用";
    CORS_STANDING_MIXED =
        "has been reported both to allow and to refuse calls from web pages (its CORS changed recently)",
        "既有允许也有拒绝网页调用的报告（其 CORS 设置最近有变化）";
    CORS_STANDING_UNKNOWN =
        "has no report either way on calls from web pages",
        "是否允许网页调用尚无报告";
    FIX_RELAY =
        "Run TTFT Meter's relay on your machine: it answers the browser's CORS check, streams the provider's answer through untouched and shows what it saw upstream. Then set the base URL to the one it prints (http://127.0.0.1:…):",
        "在本机运行 TTFT Meter 的中继：它替服务商回应浏览器的 CORS 检查，原样流式转发响应，并显示它在上游看到的各阶段耗时。然后把基础 URL 改为它打印出的地址（http://127.0.0.1:…）：";
    HINT_ERROR_WITHOUT_CORS_HEADERS =
        "OpenAI allows browser calls, but some of its error answers lack CORS headers, so an HTTP error (bad key, unknown model) can look like a network failure. Check the key and model.",
        "OpenAI 允许浏览器调用，但部分错误响应缺少 CORS 头，因此 HTTP 错误（密钥错误、模型不存在）可能表现为网络错误。请检查密钥和模型。";
    HINT_LOOPBACK_ACCESS_REFUSED =
        "The browser has not let this page reach a server on this machine (Local Network Access; Chrome's console says \"Permission was denied for this request to access the `loopback` address space\"). In Chrome, click the icon left of the address bar, then Site settings, and set \"Apps on device\" (Chrome 142 to 144: \"Local network access\") to Allow; in Firefox, allow it from the permission icon in the address bar. Then Send again.",
        "浏览器没有允许本页面访问本机上的服务（本地网络访问限制；Chrome 控制台会显示 \"Permission was denied for this request to access the `loopback` address space\"）。在 Chrome 中点击地址栏左侧的图标，进入“网站设置”，把“此设备上的应用”（Chrome 142 至 144 中为“本地网络访问”）设为“允许”；在 Firefox 中通过地址栏里的权限图标允许。然后重新发送。";
    HINT_LOCAL_NETWORK_ACCESS_REFUSED =
        "The browser has not let this page reach a server on your local network (Local Network Access; Chrome's console says \"Permission was denied for this request to access the `local` address space\"). In Chrome, click the icon left of the address bar, then Site settings, and set \"Local network\" (Chrome 142 to 144: \"Local network access\") to Allow; in Firefox, allow it from the permission icon in the address bar. Then Send again.",
        "浏览器没有允许本页面访问局域网中的服务（本地网络访问限制；Chrome 控制台会显示 \"Permission was denied for this request to access the `local` address space\"）。在 Chrome 中点击地址栏左侧的图标，进入“网站设置”，把“本地网络”（Chrome 142 至 144 中为“本地网络访问”）设为“允许”；在 Firefox 中通过地址栏里的权限图标允许。然后重新发送。";
    HINT_LOCAL_SERVER_NOT_RUNNING =
        "The local server is not running, or listens on another port or address (check the port, and that it listens on 127.0.0.1, not only another interface).",
        "本地服务没有运行，或监听在其他端口或地址上（检查端口，以及它是否监听 127.0.0.1）。";
    HINT_LOCAL_SERVER_ORIGINS =
        "The local server does not allow this page's origin (CORS). For Ollama, add this page's origin to OLLAMA_ORIGINS and restart it.",
        "本地服务不允许本页面的来源（CORS）。Ollama 需要把本页面的来源加入 OLLAMA_ORIGINS 并重启。";
    HINT_MIXED_CONTENT =
        "This page is https and the endpoint is plain http: the browser blocks such calls (mixed content). Use an https endpoint, or open this tool over http / locally.",
        "本页面是 https，而接口是 http：浏览器会拦截这种请求（混合内容）。请使用 https 接口，或通过 http / 本地打开本工具。";
    HINT_PROVIDER_BLOCKS_BROWSER_CALLS =
        "This provider does not reliably allow calls straight from a browser (CORS). Go through a proxy that adds CORS headers, such as LiteLLM.",
        "该服务商不能稳定支持浏览器直接调用（CORS）。请通过会添加 CORS 头的代理（如 LiteLLM）调用。";
    HINT_PROXY_OR_VPN =
        "A system proxy, VPN or local proxy tool in between may have failed; try with it turned off, or check its log.",
        "中间的系统代理、VPN 或本地代理工具可能出错；请关闭后重试，或查看其日志。";
    HINT_SERVER_UNREACHABLE =
        "The server may be down, or the host name or port may be wrong.",
        "服务器可能已宕机，或主机名、端口填写错误。";
    HINT_TRACE_CONTEXT_NOT_ALLOWED =
        "This run sent a traceparent header (trace context is on). A server whose CORS settings do not allow that header refuses the request before it starts; turn off trace context and run again to see whether this is the reason.",
        "本次运行发送了 traceparent 请求头（已开启追踪上下文）。如果服务器的 CORS 设置不允许该请求头，请求在开始前就会被拒绝；请关闭追踪上下文后再运行一次，看是否是这个原因。";
    HISTORY_EXPORT_REFUSED =
        "The export was not written: it contained a piece of your API key. Please report this.",
        "导出未写入：其中含有 API 密钥的片段。请报告此问题。";
    HISTORY_FILE_TOO_LARGE =
        "This file is {mib} MiB; files over {max_mib} MiB are not imported (a history of 1000 runs is about 2 MB). Choose a TTFT Meter JSON export.",
        "该文件大小为 {mib} MiB；超过 {max_mib} MiB 的文件不会导入（1000 次运行的历史约 2 MB）。请选择 TTFT Meter 导出的 JSON 文件。";
    HISTORY_KEY_FOUND =
        "{runs} runs were not written because they still contain a piece of your API key. Please report this; the rest was written.",
        "有 {runs} 次运行因仍含有 API 密钥的片段而没有写入。请报告此问题；其余内容已写入。";
    HISTORY_NOT_SAVED =
        "The history could not be saved (browser storage is full or disabled): the {runs} runs stay on this page until it is closed. Export JSON to keep them.",
        "历史记录无法保存（浏览器存储已满或被禁用）：这 {runs} 次运行在关闭本页面前仍显示在此。请导出 JSON 以保留它们。";
    HISTORY_RENUMBERED =
        "The run numbers were duplicated or out of order, so the {runs} runs were numbered again from 1 to {runs}, in their order.",
        "运行编号有重复或顺序错乱，因此这 {runs} 次运行已按原顺序重新编号为 1 到 {runs}。";
    HISTORY_SET_ASIDE =
        "The stored history could not be read ({reason}). It was kept, untouched, in this browser's localStorage under \"{slot}\", and a new history was started.",
        "无法读取已保存的历史记录（{reason}）。它已原样保留在此浏览器 localStorage 的 \"{slot}\" 中，并开始了新的历史记录。";
    HISTORY_STORAGE_FULL =
        "Browser storage is full: the newest {saved} runs were saved, the {not_saved} oldest were not (they stay on this page until it is closed). Export JSON to keep them all.",
        "浏览器存储空间已满：已保存最新的 {saved} 次运行，最早的 {not_saved} 次没有保存（在关闭本页面前仍显示在此）。请导出 JSON 以保留全部运行。";
    HISTORY_UNREADABLE_KEPT =
        "The stored history could not be read ({reason}), and there was no room to move it aside. It was left as it is, and runs of this tab are not saved, so nothing overwrites it. Export JSON to keep them.",
        "无法读取已保存的历史记录（{reason}），也没有空间把它移到别处。它保持原样，本标签页的运行不会被保存，以免覆盖它。请导出 JSON 以保留运行。";
    IMPORT_ERROR_INVALID_VERSION =
        "This export's \"schema_version\" is {found}, not a version number (1, 2, …). The file was probably edited; export it again.",
        "该导出文件的 \"schema_version\" 为 {found}，不是版本号（1、2……）。文件可能被修改过，请重新导出。";
    IMPORT_ERROR_MISSING_FIELD =
        "The field \"{field}\" is missing in {path}. The file was probably edited or cut; export it again.",
        "{path} 中缺少字段 \"{field}\"。文件可能被修改或截断，请重新导出。";
    IMPORT_ERROR_NEWER_VERSION =
        "This export uses schema version {found}, but this version of TTFT Meter reads versions up to {supported}. Open it with a newer TTFT Meter (reload the page to get the latest).",
        "该导出文件使用第 {found} 版格式，而当前 TTFT Meter 最高只能读取第 {supported} 版。请用更新的 TTFT Meter 打开（刷新页面即可获取最新版本）。";
    IMPORT_ERROR_NOT_AN_EXPORT =
        "This JSON is not a TTFT Meter export: its \"schema\" field is {found}, expected \"ttft-meter/export\". Choose a file saved with Export → JSON.",
        "该 JSON 不是 TTFT Meter 的导出文件：其 \"schema\" 字段为 {found}，应为 \"ttft-meter/export\"。请选择通过“导出 → JSON”保存的文件。";
    IMPORT_ERROR_NOT_JSON =
        "This file is not valid JSON ({detail}). Choose a .json file exported by TTFT Meter; a CSV or a cut-off file cannot be imported.",
        "该文件不是有效的 JSON（{detail}）。请选择由 TTFT Meter 导出的 .json 文件；CSV 或不完整的文件无法导入。";
    IMPORT_ERROR_WRONG_FIELD =
        "The field {path} has a wrong value: {detail}. The file was probably edited; export it again.",
        "字段 {path} 的值有误：{detail}。文件可能被修改过，请重新导出。";
    INPUT_COUNT_OUT_OF_RANGE =
        "{field}: \"{input}\" is not a whole number from {min} to {max}.",
        "{field}：\"{input}\" 不是 {min} 到 {max} 之间的整数。";
    INPUT_FIELD_RUNS =
        "Runs",
        "运行次数";
    INPUT_FIELD_TIMEOUT_S =
        "Timeout (s)",
        "超时（秒）";
    KEY_CONSENT_NOT_TYPED_FOR =
        "The key was not typed for any server address yet. Send it to {target} only if that server should have it; otherwise the request goes without it.",
        "该密钥尚未绑定任何服务器地址。只有在 {target} 应当拿到它时才发送；否则请求将不带密钥发送。";
    KEY_CONSENT_QUESTION =
        "Send your API key to {target}?",
        "把你的 API 密钥发送到 {target}？";
    KEY_CONSENT_TYPED_FOR =
        "The key was typed for {typed_for}. Send it to {target} only if that server should have it; otherwise the request goes without it.",
        "该密钥是为 {typed_for} 输入的。只有在 {target} 应当拿到它时才发送；否则请求将不带密钥发送。";
    KEY_ERROR_INNER_WHITESPACE =
        "The API key contains a space at character {position}. Remove it; keys have no spaces.",
        "API 密钥的第 {position} 个字符处有空格。请删除；密钥中没有空格。";
    KEY_ERROR_INVALID_CHARACTER =
        "The API key contains a character that cannot be sent in an HTTP header at character {position} (often a typographic quote or an invisible character from a document).",
        "API 密钥的第 {position} 个字符无法放入 HTTP 请求头（通常是从文档中复制来的弯引号或不可见字符）。";
    KEY_ERROR_LINE_BREAK =
        "The API key contains a line break at character {position}. Paste it again as one line.",
        "API 密钥的第 {position} 个字符处有换行。请重新粘贴为一行。";
    METRIC_LABEL_ANSWER_UI_DELAY_MS =
        "answer paint delay",
        "回答绘制延迟";
    METRIC_LABEL_ARRIVAL_DELAYED =
        "arrival may be late",
        "到达时间可能偏晚";
    METRIC_LABEL_ARRIVAL_DELAY_BOUND_MS =
        "possible arrival delay",
        "可能的到达延迟";
    METRIC_LABEL_CACHED_PROMPT_TOKENS =
        "cached prompt tokens",
        "缓存的输入 token";
    METRIC_LABEL_DECODE_MS =
        "decode time",
        "解码时长";
    METRIC_LABEL_DNS_MS =
        "DNS",
        "DNS";
    METRIC_LABEL_E2E_MS =
        "whole request",
        "整个请求";
    METRIC_LABEL_FIRST_CHUNK_MS =
        "first chunk of any kind",
        "首个数据块";
    METRIC_LABEL_HTTP_STATUS =
        "HTTP status",
        "HTTP 状态";
    METRIC_LABEL_ITL_GAPS =
        "inter-token gaps",
        "token 间隔序列";
    METRIC_LABEL_ITL_MS =
        "inter-token latency",
        "token 间隔";
    METRIC_LABEL_OUTPUT_TOKENS =
        "output tokens",
        "输出 token";
    METRIC_LABEL_OUTPUT_TOKENS_COUNTED =
        "tokens counted",
        "计数的 token";
    METRIC_LABEL_OUTPUT_TPS =
        "output tokens/s",
        "输出 token/秒";
    METRIC_LABEL_PERCEIVED_FROM =
        "perceived from",
        "感知起点";
    METRIC_LABEL_PERCEIVED_TTFA_MS =
        "first answer on screen",
        "回答首次显示";
    METRIC_LABEL_PERCEIVED_TTFT_MS =
        "first token on screen",
        "首个 token 显示";
    METRIC_LABEL_PROMPT_TOKENS =
        "prompt tokens",
        "输入 token";
    METRIC_LABEL_QUEUEING_MS =
        "browser queueing",
        "浏览器排队";
    METRIC_LABEL_REASONING_MS =
        "reasoning time",
        "推理时长";
    METRIC_LABEL_REASONING_TOKENS =
        "reasoning tokens",
        "推理 token";
    METRIC_LABEL_REASONING_UI_DELAY_MS =
        "reasoning paint delay",
        "推理绘制延迟";
    METRIC_LABEL_REQUEST_MS =
        "to first response byte",
        "到首个响应字节";
    METRIC_LABEL_SETUP_MS =
        "response headers",
        "响应头";
    METRIC_LABEL_TCP_MS =
        "TCP",
        "TCP";
    METRIC_LABEL_TLS_MS =
        "TLS",
        "TLS";
    METRIC_LABEL_TOKEN_COUNT_SOURCE =
        "token count from",
        "token 计数来源";
    METRIC_LABEL_TTFA_MS =
        "first answer token",
        "首个回答 token";
    METRIC_LABEL_TTFA_VISIBLE_MS =
        "first visible answer",
        "首个可见回答";
    METRIC_LABEL_TTFR_MS =
        "first reasoning token",
        "首个推理 token";
    METRIC_LABEL_TTFT_MS =
        "first token",
        "首个 token";
    METRIC_LABEL_WAITING_MS =
        "waiting for the server",
        "等待服务器";
    PROBE_ERROR_ALREADY_RAN =
        "Probe mode already ran in this tab; it runs at most once per session. Press Send to measure again.",
        "探测模式已在此标签页中运行过；每个会话最多运行一次。如需再次测量，请点击“发送”。";
    PROBE_ERROR_BAD_COUNT =
        "Probe mode was asked for with probe={given}, which is not a number of runs from 1 to {max}. The embedding page should write probe=3, for example.",
        "嵌入页面以 probe={given} 请求探测模式，但这不是 1 到 {max} 之间的运行次数。嵌入页面应写成例如 probe=3。";
    PROBE_ERROR_KEY_PRESENT =
        "Probe mode did not start: an API key is set in this tab. Probe mode runs on page load without a click, so it only measures endpoints that need no key. Press Send to measure with your key, or remove it (Forget) and reload.",
        "探测模式没有启动：此标签页中已设置 API 密钥。探测模式会在页面加载时自动运行、无需点击，因此只测量不需要密钥的接口。如需用你的密钥测量，请点击“发送”；或删除密钥（忘记）后重新加载。";
    /// The runs chart's legends.
    RUNS_CHART_LEGEND_PERCEIVED_TTFA =
        "perceived ttfa (painted)",
        "感知 ttfa（已显示）";
    RUNS_CHART_LEGEND_TTFA =
        "ttfa (first answer token)",
        "ttfa（首个回答 token）";
    RUNS_CHART_LEGEND_TTFT =
        "ttft (first token)",
        "ttft（首个 token）";
    /// Note after an answer's blank lead cut at its display bound.
    SHOWN_LEAD_CUT_NOTE =
        "… (more blank text before the answer is not shown; the measurement counts it)",
        "…（答案前更多的空白内容未显示；测量照常计入）";
    /// Note after a streamed text cut at its display bound.
    SHOWN_TEXT_CUT_NOTE =
        "… (text cut at {mib} MiB; the measurement goes on)",
        "…（文本在 {mib} MiB 处截断；测量继续进行）";
    /// The plain-text summary's header block: a label.
    SUMMARY_CONNECTIONS =
        "Connections:",
        "连接：";
    /// The plain-text summary's header block: the value of `SUMMARY_CONNECTIONS`.
    SUMMARY_CONNECTIONS_COUNTS =
        "{cold} cold (new connection), {warm} warm (reused), {unknown} unknown",
        "冷 {cold} 次（新连接），热 {warm} 次（复用），未知 {unknown} 次";
    /// The plain-text summary, under the table: statistics the caller computed.
    SUMMARY_COVERAGE =
        "Statistics over {runs} runs.",
        "统计基于 {runs} 次运行。";
    /// The plain-text summary, under the table: statistics it computed itself.
    SUMMARY_COVERAGE_SUCCESSFUL =
        "Statistics over the {runs} successful runs, warm-up runs excluded.",
        "统计基于 {runs} 次成功的运行，不含预热运行。";
    /// The plain-text summary's header block: a label.
    SUMMARY_ENDPOINT =
        "Endpoint:",
        "端点：";
    /// The plain-text summary's header block: the heading of the list of several endpoints.
    SUMMARY_ENDPOINTS =
        "Endpoints ({count}):",
        "端点（{count} 个）：";
    /// The plain-text summary's header block: a label.
    SUMMARY_FAILURES =
        "Failures:",
        "失败原因：";
    /// The plain-text summary's header block: what follows the longest label before the
    /// values (English labels end in `:` and take a space; Chinese ones end in a full-width
    /// `：`, which is its own gap). Spaces only.
    SUMMARY_LABEL_GAP =
        " ",
        "";
    /// The plain-text summary's statistics table: the header of the metric names' column.
    SUMMARY_METRIC_HEADER =
        "metric",
        "指标";
    /// The plain-text summary's header block: a label.
    SUMMARY_MODEL =
        "Model:",
        "模型：";
    /// The plain-text summary's header block: the value of `SUMMARY_ENDPOINT` when there are no runs.
    SUMMARY_NO_RUNS =
        "(no runs)",
        "（无运行）";
    /// The plain-text summary's last lines.
    SUMMARY_PERCENTILE_METHOD =
        "Percentiles: linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's default, as AIPerf).",
        "百分位数：最近秩之间线性插值（Hyndman-Fan 第 7 型，即 numpy 默认方法，与 AIPerf 相同）。";
    /// The plain-text summary's header block: a label.
    SUMMARY_PROTOCOL =
        "Protocol:",
        "协议：";
    /// The plain-text summary's header block: a label.
    SUMMARY_RUNS =
        "Runs:",
        "运行：";
    /// The plain-text summary's header block: the value of `SUMMARY_RUNS`.
    SUMMARY_RUNS_COUNTS =
        "{total} ({ok} ok, {failed} failed, {warm_up} warm-up not in statistics)",
        "{total} 次（成功 {ok}，失败 {failed}，预热 {warm_up} 次不计入统计）";
    /// The plain-text summary's last lines.
    SUMMARY_TIME_UNITS =
        "Times in ms from the request start (perceived: from the click); output_tps in tokens/s.",
        "时间单位为毫秒，从发出请求起算（perceived 从点击起算）；output_tps 单位为 token/秒。";
    /// The first line of the plain-text summary.
    SUMMARY_TITLE =
        "TTFT Meter results",
        "TTFT Meter 测量结果";
    /// The plain-text summary's statistics table: the row of TTFT over cold connections.
    SUMMARY_TTFT_COLD =
        "ttft_ms, cold",
        "ttft_ms，冷连接";
    /// The plain-text summary's statistics table: the row of TTFT over warm connections.
    SUMMARY_TTFT_WARM =
        "ttft_ms, warm",
        "ttft_ms，热连接";
    URL_ERROR_CREDENTIALS =
        "The URL holds a user name or password (user:password@host). Remove it: addresses are shown, stored, exported and sent to the server's logs, and browsers refuse to fetch such URLs. Type the key in the API key field instead.",
        "URL 中含有用户名或密码（user:password@host）。请删除：地址会被显示、保存、导出并出现在服务器日志中，而且浏览器拒绝请求这样的 URL。请把密钥填在 API 密钥输入框中。";
    URL_ERROR_EMPTY =
        "Enter the API base URL, for example https://api.openai.com/v1.",
        "请填写 API 基础 URL，例如 https://api.openai.com/v1。";
    URL_ERROR_INNER_WHITESPACE =
        "The URL contains a space or line break; remove it.",
        "URL 中含有空格或换行，请删除。";
    URL_ERROR_MISSING_HOST =
        "The URL has no host name.",
        "URL 中没有主机名。";
    VERDICT_CAUSE_COLD_START =
        "a cold start (opening the connection and the CORS preflight)",
        "冷启动（建立连接和 CORS 预检）";
    VERDICT_CAUSE_GATEWAY =
        "the gateway's own time",
        "网关自身的耗时";
    VERDICT_CAUSE_NETWORK =
        "the network round trip",
        "网络往返";
    VERDICT_CAUSE_UPLOAD =
        "the network, mostly the request's upload (the server reported when it had the whole request)",
        "网络，主要是请求的上传（服务器报告了它何时收到完整请求）";
    VERDICT_CAUSE_PAGE =
        "the page's own work (before the request and painting the answer)",
        "页面自身的工作（发出请求前和绘制回答）";
    VERDICT_CAUSE_PROMPT =
        "prompt processing (prefill)",
        "提示词处理（prefill）";
    VERDICT_CAUSE_QUEUE =
        "the server's queue",
        "服务器排队";
    VERDICT_CAUSE_REASONING =
        "reasoning before the answer",
        "回答前的推理";
    VERDICT_CAUSE_SERVER =
        "the gateway and server before the first token, as far as the page can tell (queue or prompt processing: the server does not say which; a slow upload or a lost packet's resend would land here too, and the page cannot see either)",
        "就页面所能判断，是首个 token 之前的网关和服务器（排队或提示词处理：服务器没有说明是哪一个；上传缓慢或丢包重传也会计入这里，页面看不到这两者）";
    VERDICT_CAUSE_SERVER_REST =
        "the server beyond what it reported (its own account leaves this much unexplained: another stage, or network the page cannot see)",
        "服务器自报时间之外的部分（其自报的时间没有解释这么多：另有阶段，或有页面看不到的网络时间）";
    VERDICT_CAUSE_SERVER_AND_NETWORK =
        "the network (the request's upload included), gateway and server before the first token (the browser could not see the round trip, and the server does not say its queue or prompt time)",
        "首个 token 之前的网络（包括请求的上传）、网关和服务器（浏览器看不到往返时间，服务器也没有说明排队或提示词处理时间）";
    VERDICT_CAUSE_SERVER_REST_AND_NETWORK =
        "the network (the request's upload included) and the server beyond what it reported (the browser could not see the round trip)",
        "网络（包括请求的上传）以及服务器自报时间之外的部分（浏览器看不到往返时间）";
    /// `{cause}`: a `VERDICT_CAUSE_…`; `{ms}`, `{total}`: whole ms; `{share}`: a whole percentage.
    VERDICT_HEADLINE =
        "Most of the wait: {cause}, {ms} ms of {total} ms ({share} %).",
        "等待中最大的一块：{cause}，{total} ms 中的 {ms} ms（{share}%）。";
    VERDICT_REMEDY_COLD_START =
        "Reuse connections (HTTP keep-alive, one client kept for the app's life), open the connection before the user asks (a small request at page load), and let the browser cache the preflight (Access-Control-Max-Age).",
        "复用连接（HTTP keep-alive，整个应用生命周期使用同一个客户端），在用户提问前先建立连接（页面加载时发一个小请求），并让浏览器缓存预检结果（Access-Control-Max-Age）。";
    VERDICT_REMEDY_GATEWAY =
        "The gateway adds this itself: check its callbacks, logging and database calls, or run it nearer the model server.",
        "这部分是网关自己增加的：检查它的回调、日志和数据库调用，或把它部署在离模型服务器更近的地方。";
    VERDICT_REMEDY_NETWORK =
        "The endpoint is far from this browser: use a nearer region, or a gateway near your users.",
        "接口离这个浏览器很远：换用更近的区域，或在用户附近部署网关。";
    VERDICT_REMEDY_UPLOAD =
        "The request took long to upload: a long prompt over a slow or busy uplink. Shorten the prompt or send it over a faster link; a prefix cache shortens prompt processing, not the upload.",
        "请求上传耗时较长：长提示词经过缓慢或繁忙的上行链路。请缩短提示词或换用更快的网络；前缀缓存只能缩短提示词处理，不能缩短上传。";
    VERDICT_REMEDY_PAGE =
        "Keep the page's main thread free while streaming: render tokens in batches per frame and move heavy work to a worker.",
        "流式输出时保持页面主线程空闲：每帧批量渲染 token，把繁重的工作移到 Worker 中。";
    VERDICT_REMEDY_PROMPT =
        "Shorten the prompt (fewer retrieved chunks, a shorter history) or cache its prefix (put the stable system prompt first and use prefix caching).",
        "缩短提示词（减少检索片段、缩短历史对话），或缓存其前缀（把固定的系统提示放在最前面并启用前缀缓存）。";
    VERDICT_REMEDY_QUEUE =
        "The request waited in the server's queue: lower the concurrency, use a higher tier or another provider.",
        "请求在服务器队列中等待：降低并发，或换用更高的服务等级或其他服务商。";
    VERDICT_REMEDY_REASONING =
        "The model reasoned before answering: turn reasoning off or cap it (a lower reasoning effort, a smaller thinking budget) when the task does not need it.",
        "模型在回答前先进行了推理：如果任务不需要，请关闭推理或限制推理（降低推理强度、减少思考预算）。";
    VERDICT_REMEDY_SERVER =
        "Run the prompt-length experiment: if this grows with the prompt, it is prompt processing or the request's upload (a prefix cache shortens only the first, a faster uplink only the second); if it varies from run to run, it is the queue: lower the concurrency.",
        "运行提示词长度实验：如果这部分随提示词变长而增加，那是提示词处理或请求上传（前缀缓存只能缩短前者，更快的上行链路只能缩短后者）；如果每次运行差别很大，那是排队：请降低并发。";
    PART_SOURCE_ESTIMATED =
        "estimated",
        "估算";
    PART_SOURCE_MEASURED =
        "measured",
        "实测";
    PART_SOURCE_SERVER_REPORTED =
        "reported by the server",
        "服务器报告";
    WAIT_HEADING =
        "Where the wait went",
        "等待时间花在了哪里";
    WAIT_PART_BROWSER =
        "page, before the request",
        "页面（请求发出前）";
    WAIT_PART_CONNECTION =
        "connection",
        "建立连接";
    WAIT_PART_CONNECTION_REUSED =
        "browser queueing (connection reused)",
        "浏览器排队（复用连接）";
    WAIT_PART_GATEWAY =
        "gateway",
        "网关";
    WAIT_PART_NETWORK =
        "network round trip",
        "网络往返";
    WAIT_PART_UPLOAD =
        "upload, by the server's count",
        "上传（服务器自报）";
    WAIT_PART_PAINT =
        "paint",
        "绘制";
    WAIT_PART_PREFLIGHT =
        "CORS preflight",
        "CORS 预检";
    WAIT_PART_PROMPT =
        "prompt processing",
        "提示词处理";
    WAIT_PART_QUEUE =
        "queue",
        "排队";
    WAIT_PART_REASONING =
        "reasoning",
        "推理";
    WAIT_PART_SERVER =
        "gateway and server",
        "网关和服务器";
    WAIT_PART_SERVER_AND_NETWORK =
        "network, gateway and server",
        "网络、网关和服务器";
    WAIT_PART_SERVER_REPORTED =
        "server, by its own count",
        "服务器（其自报时间）";
    WAIT_PART_SERVER_REST =
        "server, the rest",
        "服务器（其余部分）";
    /// `{kb}`: the request body, KB with one decimal; `{downlink}`: `WAIT_UPLOAD_DOWNLINK` or
    /// `WAIT_UPLOAD_NO_DOWNLINK`.
    WAIT_UPLOAD_INCLUDED =
        "This request was {kb} KB and the server does not say when it had all of it: its upload is inside the server's part here. On a slow uplink the upload grows with the prompt just as prompt processing does, and a prefix cache does not shorten it. {downlink}",
        "该请求大小为 {kb} KB，服务器没有说明何时收到完整请求：其上传时间包含在这里的服务器部分中。在缓慢的上行链路上，上传时间与提示词处理一样随提示词变长而增加，前缀缓存无法缩短它。{downlink}";
    /// `{mbps}`: the browser's estimate, Mbit/s.
    WAIT_UPLOAD_DOWNLINK =
        "The browser estimates the link at {mbps} Mbit/s (navigator.connection.downlink: a downlink; the uplink is often much slower).",
        "浏览器估计的链路速率为 {mbps} Mbit/s（navigator.connection.downlink：这是下行速率，上行通常慢得多）。";
    WAIT_UPLOAD_NO_DOWNLINK =
        "The browser gives no estimate of the link (navigator.connection is Chromium's only).",
        "浏览器没有给出链路速率的估计（只有 Chromium 提供 navigator.connection）。";
    /// `{from}`: one of the `WAIT_ROUND_TRIP_FROM_…` texts.
    WAIT_ROUND_TRIP =
        "Network round trip {ms} ms, from {from}.",
        "网络往返 {ms} ms，依据：{from}。";
    WAIT_ROUND_TRIP_FROM_EARLIER =
        "an earlier handshake with this endpoint in this page",
        "本页面之前与该接口的握手";
    /// `{count}`: how many pings.
    WAIT_ROUND_TRIP_FROM_PINGS =
        "{count} requests without the key that the page timed to this endpoint between runs (GET …/models; estimated: each is one round trip plus the server's answer, the second quickest is taken)",
        "本页面在两次运行之间向该接口发出并计时的 {count} 个不带密钥的请求（GET …/models；估计值：每个都是一次往返加上服务器的应答时间，取第二快的一个）";
    WAIT_ROUND_TRIP_FROM_PREFLIGHT =
        "this run's CORS preflight on an open connection",
        "本次运行在已打开连接上的 CORS 预检";
    WAIT_ROUND_TRIP_FROM_TCP =
        "this run's TCP handshake",
        "本次运行的 TCP 握手";
    WAIT_ROUND_TRIP_FROM_TLS =
        "this run's TLS handshake (one round trip in TLS 1.3)",
        "本次运行的 TLS 握手（TLS 1.3 为一次往返）";
    WAIT_ROUND_TRIP_UNKNOWN =
        "The browser saw no round trip to this endpoint (its timing is hidden, or the connection was opened before this page): the network is inside the server's part.",
        "浏览器看不到到该接口的往返时间（其计时被隐藏，或连接在本页面之前就已建立）：网络时间包含在服务器部分中。";
    WAIT_SERVER_CLAIM_REJECTED =
        "The server claimed {claimed_ms} ms before its first token, but the browser waited only {waited_ms} ms for it: its account is not used.",
        "服务器声称首个 token 之前用了 {claimed_ms} ms，但浏览器只等了 {waited_ms} ms：不采用它的说法。";
    /// `{chunks}`: text chunks; `{span_ms}`: ms with one decimal; `{silence_ms}`: whole ms.
    BUFFERED_ARRIVAL =
        "The answer arrived all at once: {chunks} text chunks within {span_ms} ms after {silence_ms} ms of silence. Something between you and the model buffers it (a proxy, nginx, a tunnel, a compression layer): TTFT here is the buffer's, not the model's.",
        "回答是一次性到达的：静默 {silence_ms} ms 之后，{chunks} 个文本块在 {span_ms} ms 内全部到达。你和模型之间有东西在缓冲它（代理、nginx、隧道、压缩层）：这里的 TTFT 是缓冲造成的，不是模型的。";
    VERDICT_CAUSE_RELAY =
        "the way between the browser and ttft-relay (this machine's loopback, the page's connection and preflight to the relay, the relay's own work)",
        "浏览器与 ttft-relay 之间（本机回环、页面到中继的连接和预检、中继自身的工作）";
    VERDICT_CAUSE_RELAY_COLD_START =
        "opening the relay's connection to the provider (DNS, TCP and TLS, timed by the relay)",
        "建立中继到服务商的连接（DNS、TCP 和 TLS，由中继计时）";
    VERDICT_CAUSE_RELAY_NETWORK =
        "the network round trip between the relay (this machine) and the provider",
        "中继（本机）与服务商之间的网络往返";
    VERDICT_CAUSE_RELAY_SERVER =
        "the provider's server before its first token (queue or prompt processing: the relay timed the network around it)",
        "首个 token 之前服务商的服务器（排队或提示词处理：中继已测出它前后的网络时间）";
    VERDICT_REMEDY_RELAY =
        "This is usually a few ms. Much more means the page's first connection and CORS preflight to the relay, or a busy machine: run again (the browser keeps its connection to the relay).",
        "这部分通常只有几毫秒。明显更多说明是页面到中继的首次连接和 CORS 预检，或者机器繁忙：请再运行一次（浏览器会保持到中继的连接）。";
    VERDICT_REMEDY_RELAY_COLD_START =
        "The relay opened a new connection to the provider for this run and keeps it open, so the next runs reuse it. Your app's own client should do the same: one client kept for the app's life, or a small request before the user asks.",
        "中继为本次运行新建了到服务商的连接并会保持它，之后的运行会复用这个连接。你的应用自己的客户端也应如此：整个应用生命周期使用同一个客户端，或在用户提问前先发一个小请求。";
    VERDICT_REMEDY_RELAY_NETWORK =
        "The provider is far from this machine: a nearer region or endpoint shortens it. The browser ↔ relay loopback is not part of it.",
        "服务商离这台机器很远：换用更近的区域或接口可以缩短它。浏览器 ↔ 中继的本机回环不在其中。";
    VERDICT_REMEDY_RELAY_SERVER =
        "The time is the provider's, not the network's nor the relay's (the relay's own part is the few ms of browser ↔ relay). Run the prompt-length experiment to tell prompt processing from the queue, or compare another region or provider.",
        "这段时间属于服务商，不是网络，也不是中继（中继自身只占浏览器 ↔ 中继那几毫秒）。运行提示词长度实验来区分提示词处理和排队，或对比其他区域或服务商。";
    WAIT_PART_RELAY =
        "browser ↔ relay (loopback)",
        "浏览器 ↔ 中继（本机回环）";
    WAIT_PART_RELAY_CONNECTION =
        "relay → provider, new connection, by the relay",
        "中继 → 服务商，新建连接（中继计时）";
    WAIT_PART_RELAY_NETWORK =
        "relay → provider, round trip, by the relay",
        "中继 → 服务商，网络往返（中继计时）";
    WAIT_PART_PROVIDER_SERVER =
        "the provider's server",
        "服务商的服务器";
    WAIT_ROUND_TRIP_FROM_RELAY =
        "ttft-relay's quickest exchange with the provider (a TLS handshake, or a request's trip to its response headers)",
        "ttft-relay 与服务商之间最快的一次交互（一次 TLS 握手，或某个请求到其响应头的往返）";
    /// `{conn}`: one of the `WAIT_RELAY_CONN_…` texts.
    WAIT_RELAY_NOTE =
        "Via ttft-relay: browser ↔ relay is this machine's loopback, measured against the relay's clock; the rest is what the relay saw of the provider. Cold and warm describe the relay's connection to the provider: {conn}.",
        "经 ttft-relay：浏览器 ↔ 中继是本机回环，对照中继的时钟测得；其余部分是中继看到的服务商一侧。冷启动与热连接指的是中继到服务商的连接：{conn}。";
    WAIT_RELAY_CONN_NEW =
        "cold, opened for this run",
        "冷，为本次运行新建";
    WAIT_RELAY_CONN_NEW_SHARED =
        "cold, opened for a concurrent request whose handshake this run waited for",
        "冷，为并发请求新建，本次运行等待了它的握手";
    WAIT_RELAY_CONN_PREOPENED =
        "warm, opened by the relay's pool before this run",
        "热，中继的连接池在本次运行前已建立";
    WAIT_RELAY_CONN_REUSED =
        "warm, reused",
        "热，复用";
    WAIT_RELAY_CONN_UNKNOWN =
        "the relay did not say",
        "中继没有说明";
    URL_ERROR_UNSUPPORTED_SCHEME =
        "Only http:// and https:// URLs can be called (got {scheme}://).",
        "只能调用 http:// 和 https:// 的 URL（填写的是 {scheme}://）。";
    URL_WARNING_DOUBLED_VERSION =
        "/v1/v1 was written; it was reduced to one /v1.",
        "URL 中出现了 /v1/v1，已合并为一个 /v1。";
    URL_WARNING_FRAGMENT_DROPPED =
        "The #fragment was dropped; it is never sent to a server.",
        "已去掉 # 之后的部分；它不会被发送到服务器。";
    URL_WARNING_FULL_PATH_PASTED =
        "The full path was pasted; the base URL is enough (/{removed} is added automatically).",
        "粘贴了完整路径；只需填写基础 URL（会自动加上 /{removed}）。";
    URL_WARNING_HTTPS_TO_LOCAL_SERVER =
        "https to a local server: local servers usually serve plain http.",
        "对本地服务使用了 https：本地服务通常只提供 http。";
    URL_WARNING_INSECURE_HTTP =
        "Plain http to a remote host: the key travels unencrypted, and an https page cannot call it (mixed content).",
        "对远程主机使用了 http：密钥以明文传输，而且 https 页面无法调用它（混合内容）。";
    URL_WARNING_MISSING_SCHEME =
        "No http:// or https:// was typed; {assumed}:// is used.",
        "没有填写 http:// 或 https://，已使用 {assumed}://。";
    URL_WARNING_MISSING_VERSION_ADDED =
        "{added} was added to the host, where this API lives.",
        "已在主机后加上 {added}（该 API 位于此路径下）。";
    URL_WARNING_MODELS_URL_PASTED =
        "A models-list URL was pasted; its base URL is used.",
        "粘贴的是模型列表 URL，已使用其基础 URL。";
    URL_WARNING_NO_VERSION_SEGMENT =
        "The path has no version such as /v1; it is used as typed. If the server answers 404, try adding /v1.",
        "路径中没有 /v1 之类的版本号，已按原样使用。如果服务器返回 404，请尝试加上 /v1。";
    URL_WARNING_PROTOCOL_PATH_MISMATCH =
        "The URL ends in /{pasted}, which belongs to another protocol than the selected one ({selected}); the selected protocol's path is used. Check the protocol choice.",
        "URL 以 /{pasted} 结尾，这属于另一种协议，而不是所选协议（{selected}）；已改用所选协议的路径。请检查协议选择。";
    URL_WARNING_QUERY_STRING_KEPT =
        "The query string ?{query} is kept and sent after the path; remove it unless the server needs it (Azure needs api-version).",
        "查询字符串 ?{query} 已保留并附在路径之后；除非服务器需要（Azure 需要 api-version），否则请删除。";
    URL_WARNING_SURROUNDING_WHITESPACE =
        "Spaces or line breaks around the URL were removed.",
        "已去掉 URL 前后的空格或换行。";
}
