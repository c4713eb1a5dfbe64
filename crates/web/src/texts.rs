//! The catalogue of this crate's texts: one line per text, English then Simplified
//! Chinese (docs/DESIGN.md §4, "One shape for UI text"). Each is a `ttft_core::text::Text`.

ttft_core::texts! {
    catalogue = ttft_core::text::catalogue::WEB;
    /// The answer pane's title.
    ANSWER =
        "Answer",
        "回答";
    API_KEY =
        "API key",
        "API 密钥";
    /// Under the readouts when a run's arrivals waited for the main thread (WebKit);
    /// `{flagged}` is [`ARRIVAL_DELAY_FLAGGED`] over the threshold, else empty.
    ARRIVAL_DELAY =
        "Arrival times may be late by up to {bound_ms} ms{flagged}: this browser hands a worker's network traffic to the page's main thread, which was busy that long while the run waited for its first answer token.",
        "到达时间最多可能偏晚 {bound_ms} ms{flagged}：此浏览器的 Worker 网络数据需经页面主线程传递，而在等待首个回答 token 期间主线程曾繁忙这么久。";
    /// Filled into [`ARRIVAL_DELAY`] when the bound is over the threshold.
    ARRIVAL_DELAY_FLAGGED =
        " (over 50 ms: read this run's times with care)",
        "（超过 50 ms：请谨慎看待本次运行的时间）";
    /// Under the readouts when the page's main thread stalled during a run (over 50 ms).
    MAIN_THREAD_STALL =
        "The page could not run anything for up to {stall_ms} ms during this run (its main thread was busy: a flood of events, or other work): paint times, and arrival times where they wait for the main thread, may be late by up to that.",
        "本次运行期间页面最多有 {stall_ms} ms 无法执行任何操作（主线程繁忙：事件洪流或其他工作）：绘制时间，以及需经主线程传递的到达时间，可能因此最多偏晚这么久。";
    /// A run row's tooltip when its arrivals may be late.
    ARRIVAL_DELAY_ROW_TITLE =
        "Arrival times may be late by up to {bound_ms} ms: the page's main thread was busy that long while this run waited for its first answer token (more than 50 ms).",
        "到达时间最多可能偏晚 {bound_ms} ms：本次运行等待首个回答 token 期间，页面主线程忙碌了这么久（超过 50 ms）。";
    ASK_FOR_REASONING =
        "Ask for reasoning",
        "请求推理/思考";
    BASE_URL =
        "Base URL",
        "基础 URL";
    /// The preset list's empty choice.
    CHOOSE_A_SERVER =
        "Choose a server…",
        "选择服务器…";
    /// Above the form on a page not served by the simulator, until a base URL is set.
    CHOOSE_ENDPOINT_NOTICE =
        "Choose your endpoint: pick a preset below or type your server's base URL (this page is not served by the bundled simulator, so there is nothing to measure yet).",
        "请选择要测量的接口：在下方选择预设，或填写服务器的基础 URL（此页面不是由内置模拟器提供的，因此还没有可测量的接口）。";
    CLEAR_RUNS =
        "Clear",
        "清空";
    /// The Clear button after one click: the second click clears.
    CLEAR_RUNS_CONFIRM =
        "Also deletes the stored history: click again",
        "也会删除已保存的历史：再点一次";
    /// The runs table's column headers (the catalogue's metrics name theirs).
    COLUMN_CONNECTION =
        "connection",
        "连接";
    COLUMN_EXPERIMENT =
        "experiment",
        "实验";
    COLUMN_MODEL =
        "model",
        "模型";
    COLUMN_NETWORK_SETUP =
        "dns/tcp/tls_ms",
        "dns/tcp/tls_ms";
    COLUMN_OUTCOME =
        "outcome",
        "结果";
    COLUMN_PAINT =
        "paint",
        "绘制方法";
    COLUMN_PAINT_ERROR =
        "paint error (bias, p95)",
        "绘制时间误差（偏差，p95）";
    COLUMN_TOKENS =
        "tokens in / cached / out",
        "输入 / 缓存 / 输出 token";
    COLUMN_TRANSPORT =
        "transport",
        "传输";
    COLUMN_HTTP =
        "HTTP",
        "HTTP";
    /// The runs table's connection cell.
    CONNECTION_COLD =
        "cold",
        "冷";
    CONNECTION_COLD_PREFLIGHT =
        "cold (preflight)",
        "冷（预检）";
    CONNECTION_COLD_FIRST =
        "cold (first request)",
        "冷（首次请求）";
    /// The selected run's connection line: the verdict with its reason, the HTTP version.
    CONNECTION_LINE =
        "Connection: {verdict}. HTTP version: {protocol}.",
        "连接：{verdict}。HTTP 版本：{protocol}。";
    EVIDENCE_NEW =
        "cold, this request opened a new connection (Resource Timing)",
        "冷，本次请求建立了新连接（Resource Timing）";
    EVIDENCE_REUSED =
        "warm, this request reused an open connection (Resource Timing)",
        "热，本次请求复用了已打开的连接（Resource Timing）";
    EVIDENCE_PREFLIGHT_OPENED =
        "cold, its CORS preflight opened the connection that the request then reused",
        "冷，CORS 预检建立了连接，请求随后复用了它";
    EVIDENCE_EARLIER_REQUEST =
        "warm, the page's own request to this server had used the connection just before (within 4 s), so the preflight found it open",
        "热，页面自己对该服务器的请求刚刚（4 秒内）用过这个连接，预检时连接仍然打开";
    EVIDENCE_PREFLIGHT_CLOCK_WARM =
        "warm, its CORS preflight took one round trip (no handshake fits in the rest): it found the connection open",
        "热，CORS 预检只用了一次往返（剩余时间容不下一次握手）：连接仍然打开";
    EVIDENCE_PREFLIGHT_CLOCK_COLD =
        "cold, its CORS preflight took a handshake longer than one round trip: the connection had closed since the page's last request, and the preflight opened a new one",
        "冷，CORS 预检比一次往返多用了一次握手的时间：连接在页面上次请求后已关闭，预检建立了新连接";
    EVIDENCE_FIRST_CONTACT =
        "cold, the page's first request to this server (its timing is hidden: no Timing-Allow-Origin)",
        "冷，页面对该服务器的首次请求（其时序被隐藏：没有 Timing-Allow-Origin）";
    EVIDENCE_UNKNOWN =
        "unknown, the server hides its timing (no Timing-Allow-Origin) after earlier requests, or the page last heard from it too long ago to know, or its CORS preflight's time was between one round trip and one with a handshake",
        "未知，服务器在之前的请求之后隐藏了时序（没有 Timing-Allow-Origin），或页面上次与它通信已太久，无法判断，或 CORS 预检的用时介于一次往返与一次往返加握手之间";
    EVIDENCE_RELAY_NEW =
        "cold, ttft-relay opened a new connection to the provider for this request (DNS, TCP and TLS on the relay's clock; the browser's own connection is a loopback to the relay)",
        "冷，ttft-relay 为本次请求新建了到服务商的连接（DNS、TCP 和 TLS 由中继计时；浏览器自己的连接只是到中继的本机回环）";
    EVIDENCE_RELAY_REUSED =
        "warm, ttft-relay's connection to the provider was open (reused, or opened by its pool before the request)",
        "热，ttft-relay 到服务商的连接已经打开（复用，或由其连接池在请求前建立）";
    /// Beside a run that went through ttft-relay (the runs table, the history).
    VIA_RELAY =
        "via relay",
        "经中继";
    /// The selected run's line when it went through ttft-relay. `{version}`: the relay's
    /// version or "?"; `{proto}`: `h2`, `http/1.1` or "?".
    RELAY_LINE =
        "Via ttft-relay {version}, to the provider over {proto}.",
        "经 ttft-relay {version}，到服务商使用 {proto}。";
    /// `{kind}`: the relay's error code.
    RELAY_UPSTREAM_FAILED =
        "ttft-relay says the provider's side failed: {kind}.",
        "ttft-relay 表示服务商一侧出错：{kind}。";
    /// `{kind}`: the relay's error code.
    RELAY_REFUSED =
        "ttft-relay answered itself and refused the request: {kind}.",
        "ttft-relay 自行应答并拒绝了该请求：{kind}。";
    /// Under the selected run's network line when its headers came with the first body bytes.
    HEADERS_WITH_BODY_NOTE =
        "The response headers reached the browser only with the first bytes of the answer ({headers_ms} after the request): the wait before them is the server's work together with anything that held the headers on the way (nginx before 1.23 does over HTTP/2), not the server's silence alone.",
        "响应头直到回答的第一批字节到达时才到达浏览器（请求后 {headers_ms}）：在此之前的等待是服务器的处理时间加上途中任何扣住响应头的环节（nginx 1.23 之前的版本在 HTTP/2 下会这样做），并不只是服务器的沉默。";
    PROTOCOL_HIDDEN =
        "not shown by the browser",
        "浏览器未提供";
    CONNECTION_UNKNOWN =
        "?",
        "?";
    CONNECTION_WARM =
        "warm",
        "热";
    CONNECTION_WARM_UP =
        "warm-up",
        "预热";
    /// The crash banner (plain DOM, after a panic) and its reload link.
    CRASH_MESSAGE =
        "TTFT Meter stopped because of an internal error. Your finished runs are saved in this browser; reload the page to continue. (Details are in the browser console.)",
        "TTFT Meter 因内部错误而停止。已完成的运行都已保存在此浏览器中；刷新页面即可继续。（详细信息见浏览器控制台。）";
    CRASH_RELOAD =
        "Reload",
        "刷新页面";
    /// Dismisses a history notice.
    DISMISS_NOTICE =
        "OK",
        "知道了";
    ELAPSED =
        "Elapsed",
        "已用时间";
    ENDPOINT =
        "Endpoint",
        "接口";
    FIRST_ANSWER_ON_SCREEN =
        "First answer on screen",
        "回答首次显示";
    FIRST_ANSWER_TOKEN =
        "First answer token",
        "首个回答 token";
    FIRST_CHUNK_OF_ANY_KIND =
        "First chunk of any kind",
        "首个数据块";
    FIRST_REASONING_TOKEN =
        "First reasoning token",
        "首个推理 token";
    FORGET_KEY =
        "Forget",
        "清除";
    /// The key question's answers.
    KEY_CONSENT_REFUSE =
        "Don't send",
        "不发送";
    KEY_CONSENT_SEND =
        "Send key",
        "发送密钥";
    /// The note under the API key field: a key, the origin it goes to.
    KEY_NOTE_BOUND =
        "{masked} · kept in this tab's sessionStorage only · sent to {origin}; any other server asks first",
        "{masked} · 仅保存在本标签页的 sessionStorage 中 · 发送到 {origin}；发往其他服务器前会先询问";
    /// The note under the API key field while it is empty.
    KEY_NOTE_NO_KEY =
        "Kept in this tab's sessionStorage only; sent only to the endpoint it is typed for (any other asks first).",
        "仅保存在本标签页的 sessionStorage 中；只发送到输入它时的接口（发往其他地址前会先询问）。";
    /// The note under the API key field: a key not yet tied to an origin.
    KEY_NOTE_UNBOUND =
        "{masked} · kept in this tab's sessionStorage only · not yet tied to a server: asks before sending",
        "{masked} · 仅保存在本标签页的 sessionStorage 中 · 尚未绑定服务器：发送前会先询问";
    /// The API key field's placeholder.
    KEY_PLACEHOLDER =
        "not needed for the simulator",
        "模拟器无需密钥";
    /// Above the form when a key in the URL was dropped; `{names}` the parameters.
    KEY_REFUSED_NOTICE =
        "A key in the page address ({names}) was ignored and removed from the address: addresses end up in browser history, server logs and shared links. Type the key in the API key field instead; it stays in this tab only.",
        "页面地址中的密钥（{names}）已被忽略并从地址中移除：地址会留在浏览器历史、服务器日志和分享的链接中。请在 API 密钥输入框中输入密钥；它只保存在当前标签页中。";
    /// The language switch's label, in both languages whatever the page's.
    LANGUAGE_SWITCH =
        "Language / 语言",
        "Language / 语言";
    LIST_MODELS =
        "List models",
        "列出模型";
    /// Under the run options.
    MAX_RUNS_HINT =
        "Up to {max_runs} runs.",
        "最多 {max_runs} 次。";
    MAX_TOKENS =
        "max_tokens",
        "max_tokens";
    /// The max_tokens field's placeholder.
    MAX_TOKENS_PLACEHOLDER =
        "server default",
        "服务器默认";
    MODEL =
        "Model",
        "模型";
    /// Beside List models, once the endpoint listed some.
    MODELS_LISTED =
        "{count} models listed by the endpoint",
        "接口列出了 {count} 个模型";
    MORE_COLUMNS =
        "More columns",
        "更多列";
    /// The selected run's network line; `{timing}` is [`NETWORK_TIMING_VISIBLE`] or
    /// [`NETWORK_TIMING_HIDDEN`].
    NETWORK_BREAKDOWN =
        "DNS {dns} · TCP {tcp} · TLS {tls} · browser queueing {queueing} · request {request} · waiting for first byte {waiting} ({timing})",
        "DNS {dns} · TCP {tcp} · TLS {tls} · 浏览器排队 {queueing} · 请求 {request} · 等待首字节 {waiting}（{timing}）";
    NETWORK_TIMING_HIDDEN =
        "hidden: the server sends no Timing-Allow-Origin",
        "不可见：服务器未发送 Timing-Allow-Origin";
    NETWORK_TIMING_VISIBLE =
        "Resource Timing",
        "Resource Timing";
    /// The runs table's outcome cell.
    OUTCOME_CUT_OFF =
        "cut off",
        "流被截断";
    OUTCOME_EMPTY_STREAM =
        "empty stream",
        "空响应流";
    OUTCOME_HTTP_STATUS =
        "HTTP {status}",
        "HTTP {status}";
    OUTCOME_MALFORMED_CHUNK =
        "malformed chunk",
        "数据块格式错误";
    OUTCOME_NETWORK_ERROR =
        "network error",
        "网络错误";
    OUTCOME_NOT_SENT =
        "not sent",
        "未发送";
    OUTCOME_OK =
        "ok",
        "成功";
    OUTCOME_OK_TTFT_ONLY =
        "ok (TTFT only)",
        "成功（只测首字）";
    OUTCOME_REDIRECTED =
        "redirected",
        "被重定向";
    OUTCOME_STOPPED =
        "stopped",
        "已停止";
    OUTCOME_STREAMING =
        "streaming",
        "进行中";
    OUTCOME_STREAM_ERROR =
        "error in stream",
        "流中出错";
    OUTCOME_TIMEOUT =
        "timeout",
        "超时";
    /// The paint-error cell of the reference paint method (Element Timing).
    PAINT_ERROR_REFERENCE =
        "0 (reference)",
        "0（基准）";
    /// Under the selected run's network line when a CORS preflight went first.
    PREFLIGHT_NOTE =
        "CORS preflight: the browser asked the server with OPTIONS first ({preflight_ms}, inside the queueing time, with the connection it opened if none was open). Later runs to this origin skip it while the browser caches the answer.",
        "CORS 预检：浏览器先用 OPTIONS 询问服务器（{preflight_ms}，包含在排队时间内；若当时没有打开的连接，也包括它建立连接的时间）。在浏览器缓存预检结果期间，之后对该源的运行不再预检。";
    PRESET =
        "Preset",
        "预设";
    PROMPT =
        "Prompt",
        "提示词";
    PROTOCOL =
        "Protocol",
        "协议";
    PROTOCOL_AUTO =
        "Auto (from the URL)",
        "自动（根据 URL）";
    /// The reasoning pane's title.
    REASONING =
        "Reasoning",
        "推理";
    /// Above the runs table when only the newest rows are shown.
    ROWS_HIDDEN =
        "The {hidden} older runs are left out of the table (they are in the summary, the charts and the exports).",
        "较早的 {hidden} 次运行未列在表中（汇总、图表和导出中仍包含它们）。";
    /// The series' progress bar (its accessible name).
    RUNS_DONE =
        "Runs done",
        "已完成的运行";
    /// The runs table's heading.
    RUNS_HEADING =
        "Runs",
        "运行记录";
    /// The run options' number of runs.
    RUN_COUNT =
        "Runs",
        "运行次数";
    /// The selected run's heading.
    RUN_DETAIL_HEADING =
        "Run {number}",
        "第 {number} 次运行";
    RUN_HEADING =
        "Run",
        "运行";
    SEND =
        "Send",
        "发送";
    SHOW_ALL =
        "Show all {total}",
        "显示全部 {total} 条";
    SHOW_THE_NEWEST =
        "Show the newest {window}",
        "只显示最新 {window} 条";
    /// A runs table row's SLO mark (its title).
    SLO_MET =
        "Met every per-run SLO threshold",
        "达到全部单次运行 SLO 阈值";
    SLO_MISSED =
        "Missed a per-run SLO threshold",
        "未达到某个单次运行 SLO 阈值";
    /// The status beside Send ([`STATUS_RUN_OF`] follows it during a series).
    STATUS_DONE =
        "Done.",
        "完成。";
    STATUS_FAILED =
        "The run failed; see why below.",
        "运行失败，原因见下方。";
    STATUS_INVALID_INPUT =
        "Check the input.",
        "请检查输入。";
    STATUS_READY =
        "Ready.",
        "就绪。";
    /// After the status during a series of several runs.
    STATUS_RUN_OF =
        " (run {run} of {total})",
        "（第 {run}/{total} 次）";
    STATUS_STREAMING =
        "Streaming…",
        "正在接收…";
    STATUS_WAITING =
        "Waiting for the first token…",
        "正在等待首个 token…";
    STOP =
        "Stop",
        "停止";
    /// The header's tagline.
    TAGLINE =
        "Time to first token, measured in your browser, as painted.",
        "在你的浏览器中测量首 token 时间——以屏幕上显示为准。";
    THEME =
        "Theme",
        "主题";
    THEME_DARK =
        "Dark",
        "深色";
    THEME_LIGHT =
        "Light",
        "浅色";
    THEME_SYSTEM =
        "System",
        "跟随系统";
    TIMEOUT_PER_RUN_S =
        "Timeout per run (s)",
        "每次超时（秒）";
    /// Under the readouts; `{isolation}` is [`TIMER_STEP_ISOLATED`] or
    /// [`TIMER_STEP_NOT_ISOLATED`].
    TIMER_STEP =
        "Timer step {step_ms} ms{isolation}",
        "计时精度 {step_ms} ms{isolation}";
    TIMER_STEP_ISOLATED =
        " (cross-origin isolated)",
        "（已跨源隔离）";
    TIMER_STEP_NOT_ISOLATED =
        " (not isolated: serve with COOP/COEP for 5 µs steps)",
        "（未隔离：使用 COOP/COEP 可达 5 µs）";
    TIMER_STEP_UNKNOWN =
        "Timer step unknown",
        "计时精度未知";
    TTFT_ONLY =
        "TTFT only: stop at the first answer token",
        "只测首字：收到首个回答 token 即停止";
    WARM_UP =
        "Warm-up run first (not measured)",
        "先做一次预热（不计入）";
}
