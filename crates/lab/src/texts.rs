//! The catalogue of this crate's texts: one line per text, English then Simplified
//! Chinese (docs/DESIGN.md §4, "One shape for UI text"). Each is a `ttft_core::text::Text`.

ttft_core::texts! {
    catalogue = ttft_core::text::catalogue::LAB;
    ARM =
        "arm",
        "组";
    BROWSER_QUEUEING_WAVES =
        "browser queueing (waves)",
        "浏览器排队（波）";
    CACHED_SHARE =
        "cached share",
        "缓存占比";
    CACHED_TOKENS_MEDIAN =
        "cached tokens (median)",
        "缓存 token（中位数）";
    CACHE_DESCRIPTION =
        "Cold prompts, a repeated prompt right after its priming run, and the repeated prompt with only its first token changed: whether the server's prefix cache hits and what it saves.",
        "冷启动提示、紧跟在预热请求之后的重复提示、以及只改了第一个 token 的重复提示：判断服务器的前缀缓存是否命中以及节省多少时间。";
    CACHE_NOTE_PRIMING =
        "Each warm run came right after a priming run of the same prompt, so servers that keep only the last prompt's cache (llama.cpp, llama-cpp-python) can hit; priming runs are shown but enter no statistic.",
        "每次热缓存运行都紧跟在同一提示的预热请求之后，因此只保留上一个提示缓存的服务器（llama.cpp、llama-cpp-python）也能命中；预热请求会显示，但不计入任何统计。";
    CACHE_NOTE_TIMING_EVIDENCE =
        "The server reports no cached tokens, so hits were judged from timing: a hit needs a warm median at most {limit} of the cold one and {min_saving_ms} ms lower.",
        "服务器没有报告缓存的 token 数，因此命中与否按时间判断：热缓存中位数不超过冷启动的 {limit}，且至少低 {min_saving_ms} 毫秒才算命中。";
    CACHE_VERDICT_CACHE_WORKS =
        "The prefix cache works: {share} of the repeated prompt came from the cache and TTFT dropped by {saved} ms. Keep the start of your prompts stable (system prompt, tools, documents first; dates, names and the question last).",
        "前缀缓存有效：重复提示中 {share} 的 token 来自缓存，首字延迟降低了 {saved} 毫秒。请保持提示开头不变（系统提示、工具、文档在前；日期、姓名和问题放在最后）。";
    CACHE_VERDICT_FIRST_TOKEN_CHANGED_MISSES =
        "Changing only the first token lost the whole cache (TTFT {lost} ms slower than warm): caches match from position 0. Never put anything that changes (a timestamp, a request id, a user name) at the start of the prompt.",
        "只改动第一个 token 就完全失去了缓存（首字延迟比热缓存慢 {lost} 毫秒）：缓存从第 0 个位置开始匹配。不要把会变化的内容（时间戳、请求 ID、用户名）放在提示开头。";
    CACHE_VERDICT_HITS_BUT_NOT_FASTER =
        "The cache hits but warm runs are not faster (difference {saved} ms): prefill is not what makes this endpoint slow. Look at the network and queueing instead, or at a provider that bills cached tokens without skipping their computation.",
        "缓存命中了，但热缓存的运行并没有更快（相差 {saved} 毫秒）：拖慢这个端点的不是预填充。请检查网络和排队，或者服务商只是对缓存 token 计费优惠而并未跳过计算。";
    CACHE_VERDICT_INTERMITTENT_HITS =
        "Cache hits are intermittent: only {hit_runs} of {warm_runs} identical prompts hit. Round-robin replicas dilute hits (each replica has its own cache); use session affinity or the provider's cache key (such as prompt_cache_key or a user id) to route repeats to the same replica.",
        "缓存命中时有时无：{warm_runs} 次相同提示中只有 {hit_runs} 次命中。轮询的多个副本会稀释命中（每个副本有自己的缓存）；请使用会话亲和或服务商的缓存键（如 prompt_cache_key 或用户 ID）把重复请求路由到同一副本。";
    CACHE_VERDICT_NOT_ENOUGH_DATA =
        "Not enough successful runs: the cold and warm arms need at least {min_runs_per_arm} each. Check the failed runs and try again.",
        "成功的运行不够：冷启动组和热缓存组各至少需要 {min_runs_per_arm} 次。请检查失败的运行后重试。";
    CACHE_VERDICT_NO_HITS =
        "No cache hit: the identical prompt was never served from the cache. Caching may be off, need an explicit opt-in (cache_control) or a minimum length (often 1,024 tokens), or something at the start of the prompt changes on every request.",
        "没有命中缓存：完全相同的提示一次也没有从缓存读取。可能缓存未开启、需要显式开启（cache_control）或有最小长度要求（常见为 1024 个 token），或者提示开头每次都在变化。";
    CACHE_VERDICT_TIMING_SHOWS_HIT =
        "The prefix cache works, judged by timing (the provider reports no cached tokens): a repeated prompt right after its priming run took {share} of the cold median (a hit needs at most {limit}), {saved} ms faster. Keep the start of your prompts stable.",
        "按时间判断前缀缓存有效（服务商没有报告缓存的 token 数）：紧跟在预热请求之后的重复提示只用了冷启动中位数的 {share}（判定命中需不超过 {limit}），快了 {saved} 毫秒。请保持提示开头不变。";
    CACHE_VERDICT_TIMING_SHOWS_NO_HIT =
        "No sign of a cache hit, judged by timing (the provider reports no cached tokens): a repeated prompt right after its priming run took {share} of the cold median ({saved} ms less); a hit needs at most {limit}. Caching may be off or need an opt-in, or the prompt is below its minimum length.",
        "按时间判断没有命中缓存的迹象（服务商没有报告缓存的 token 数）：紧跟在预热请求之后的重复提示用了冷启动中位数的 {share}（少 {saved} 毫秒）；判定命中需不超过 {limit}。可能缓存未开启、需要显式开启，或提示短于最小长度。";
    CELL_NO =
        "no",
        "否";
    CELL_YES =
        "yes",
        "是";
    CLIP_NOTE_CLIPPED =
        "{what} {requested} tokens was clipped to {used}: the server's context window is {window} tokens, of which {reserved} are kept for {other} and {margin} for the chat template.",
        "{what} {requested} 个 token 已缩减为 {used}：服务器的上下文窗口为 {window} 个 token，其中 {reserved} 个留给{other}，{margin} 个留给对话模板。";
    CLIP_NOTE_LEFT_OUT =
        "{what} {requested} tokens was left out: clipped to the context window ({window} tokens, {reserved} kept for {other}) it equals a size already planned.",
        "{what} {requested} 个 token 未运行：按上下文窗口（{window} 个 token，其中 {reserved} 个留给{other}）缩减后与已计划的值相同。";
    CLIP_OTHER_OUTPUT =
        "the output",
        "输出";
    CLIP_OTHER_PROMPT =
        "the prompt",
        "提示";
    CLIP_WHAT_OUTPUT =
        "max_tokens of",
        "max_tokens";
    CLIP_WHAT_PROMPT =
        "A prompt of",
        "提示长度";
    COLD =
        "cold",
        "冷";
    CONCURRENCY =
        "Concurrency",
        "并发";
    CONCURRENCY_CHART_TITLE =
        "TTFT (ms) of each stream against concurrent streams",
        "每个流的首字延迟（毫秒）与并发流数";
    CONCURRENCY_DESCRIPTION =
        "Waves of 1, 2, 4, 8… simultaneous streams: whether the server or the browser (6 connections per host over HTTP/1.1) makes streams wait.",
        "同时发出 1、2、4、8……个流：判断是服务器还是浏览器（HTTP/1.1 下每个主机 6 个连接）让流在排队。";
    CONCURRENCY_VERDICT_BROWSER_QUEUEING =
        "Browser queueing, not the server: from {from_level} concurrent streams the browser sent only {parallel_streams} at once and held the others before sending them (over HTTP/1.1 a browser opens at most 6 connections per host). Use an endpoint that speaks HTTP/2 or HTTP/3, or spread the streams over fewer per host.",
        "这是浏览器排队，不是服务器：从 {from_level} 个并发流起，浏览器一次只发出 {parallel_streams} 个，其余的在发出前就在浏览器里等待（HTTP/1.1 下浏览器对同一主机最多开 6 个连接）。请使用支持 HTTP/2 或 HTTP/3 的端点，或减少对同一主机的并发流。";
    CONCURRENCY_VERDICT_PROTOCOL_HTTP1 =
        "The streams went over {protocol}: a browser opens at most 6 connections per host, so from 7 concurrent streams on it holds the others back.",
        "这些流走的是 {protocol}：浏览器对同一主机最多开 6 个连接，因此从第 7 个并发流起，其余的流会在浏览器里等待。";
    CONCURRENCY_VERDICT_PROTOCOL_MULTIPLEXED =
        "The streams went over {protocol}: one connection carries every stream, so the browser holds none back; any step is the server's.",
        "这些流走的是 {protocol}：一个连接承载所有流，浏览器不会扣住任何流；出现的台阶都来自服务器。";
    CONCURRENCY_VERDICT_NOT_ENOUGH_DATA =
        "No concurrent stream succeeded: fix the errors shown for each run first.",
        "没有任何并发流成功：请先解决每次运行显示的错误。";
    CONCURRENCY_VERDICT_NO_QUEUEING =
        "No queueing up to {max_level} concurrent streams: TTFT stays flat, the server and the browser keep up.",
        "直到 {max_level} 个并发流都没有排队：首字延迟保持平稳，服务器和浏览器都跟得上。";
    CONCURRENCY_VERDICT_SERVER_QUEUEING =
        "Server queueing: the server runs {parallel_streams} streams at once; from {from_level} concurrent streams the stream number {first_waiting} and later wait for a free slot before prefill starts. Keep concurrency at or below {parallel_streams}, or ask for more capacity.",
        "服务器排队：服务器一次只处理 {parallel_streams} 个流；从 {from_level} 个并发流起，第 {first_waiting} 个及之后的流要等空闲位置才开始预填充。请把并发控制在 {parallel_streams} 以内，或申请更多容量。";
    CONCURRENCY_VERDICT_SERVER_SLOWDOWN =
        "TTFT grows with concurrency: at {max_level} streams the median is {ratio}× the single-stream one, without a clear step. The server shares its capacity between requests; lower concurrency or add capacity.",
        "首字延迟随并发增长：{max_level} 个流时中位数是单个流的 {ratio} 倍，但没有明显的台阶。服务器在请求之间分摊算力；请降低并发或增加容量。";
    CONCURRENCY_VERDICT_STEP_MAY_BE_BROWSER_LIMIT =
        "The step after {parallel_streams} streams may be the browser, not the server: over HTTP/1.1 a browser sends at most 6 requests per host at once, and this endpoint hides the timing that would tell (it sends no Timing-Allow-Origin header). Check the protocol column in the browser's network panel; with HTTP/2 the step is the server's.",
        "{parallel_streams} 个流之后的台阶可能来自浏览器而不是服务器：HTTP/1.1 下浏览器对同一主机最多同时发出 6 个请求，而这个端点隐藏了能区分两者的时间信息（没有 Timing-Allow-Origin 响应头）。请在浏览器网络面板的协议列查看；如果是 HTTP/2，台阶就来自服务器。";
    CONCURRENT_STREAMS =
        "concurrent streams",
        "并发流";
    COUNTED_LABEL =
        "{label} ({source})",
        "{label}（{source}）";
    ESTIMATE =
        "estimate",
        "估算";
    FAILED =
        "failed",
        "失败";
    FIRST_ANSWER_COLUMN =
        "first answer",
        "首个回答 token";
    FIRST_ANSWER_SERIES =
        "first answer",
        "首个回答";
    FIRST_REASONING_COLUMN =
        "first reasoning",
        "首个思考 token";
    FIRST_REASONING_SERIES =
        "first reasoning",
        "首个思考";
    FIRST_TOKEN_CHANGED =
        "first token changed",
        "首 token 改变";
    HITS =
        "hits",
        "命中";
    HITS_WERE_JUDGED_FROM_USAGE_THE =
        "Hits were judged from usage: the cached prompt tokens the server reported.",
        "命中与否按用量判断：服务器报告的缓存提示 token 数。";
    INPUT_PROBLEM_EMPTY =
        "give a value",
        "请填写一个值";
    INPUT_PROBLEM_NOT_A_NUMBER =
        "\"{input}\" is not a whole number (write 400, 5000 or 5k)",
        "“{input}”不是整数（可写作 400、5000 或 5k）";
    INPUT_PROBLEM_OUT_OF_RANGE =
        "\"{input}\" is not a whole number from {min} to {max}",
        "“{input}”不是 {min} 到 {max} 之间的整数";
    INPUT_PROBLEM_TOO_LONG =
        "{chars} characters given; at most {max} are accepted",
        "填写了 {chars} 个字符；最多接受 {max} 个";
    INPUT_PROBLEM_TOO_MANY_VALUES =
        "{count} values given; at most {max} are accepted",
        "填写了 {count} 个值；最多接受 {max} 个";
    LINEAR_FIT =
        "linear fit",
        "线性拟合";
    MAX_BROWSER_QUEUEING =
        "max browser queueing",
        "浏览器最长排队";
    MAX_TOKENS =
        "max_tokens",
        "max_tokens";
    MAX_TOKENS_CHART_TITLE =
        "TTFT (ms) per repetition, by max_tokens",
        "各 max_tokens 下每次重复的首字延迟（毫秒）";
    MAX_TOKENS_DESCRIPTION =
        "The same prompt with a small and a large output limit: prefill does not depend on max_tokens, so a difference means the server reserves or schedules by it.",
        "同一个提示分别用较小和较大的输出上限：预填充与 max_tokens 无关，如果首字延迟有差别，说明服务器按它预留资源或排队。";
    MAX_TOKENS_VERDICT_DEPENDS =
        "TTFT changes with max_tokens: {high_max_tokens} instead of {low_max_tokens} changes the median by {difference} ms (noise {threshold} ms). Prefill itself does not depend on it, so the server reserves memory or schedules by the requested length: ask for no more output than you need.",
        "首字延迟随 max_tokens 变化：把 {low_max_tokens} 改成 {high_max_tokens} 后中位数变化 {difference} 毫秒（噪声 {threshold} 毫秒）。预填充本身与它无关，说明服务器按请求的输出长度预留显存或排队：只申请需要的输出长度。";
    MAX_TOKENS_VERDICT_INDEPENDENT =
        "TTFT does not depend on output length: the medians differ by {difference} ms, within the noise ({threshold} ms). Set max_tokens for the answer you need; it does not slow the first token.",
        "首字延迟与输出长度无关：两组中位数相差 {difference} 毫秒，在噪声范围（{threshold} 毫秒）之内。按需要的回答长度设置 max_tokens 即可，它不会拖慢第一个字。";
    MAX_TOKENS_VERDICT_NOT_ENOUGH_DATA =
        "Not enough successful runs: each max_tokens value needs at least {min_runs}. Check the failed runs and try again.",
        "成功的运行不够：每个 max_tokens 取值至少需要 {min_runs} 次。请检查失败的运行后重试。";
    MODEL =
        "model",
        "模型";
    MODELS =
        "Models",
        "模型对比";
    MODELS_CHART_TITLE =
        "TTFT (ms) against prompt tokens, per model",
        "各模型的首字延迟（毫秒）与提示 token 数";
    MODELS_DESCRIPTION =
        "Several models (or endpoints) on the same prompts, ranked by median TTFT, with a prompt-length line per model.",
        "多个模型（或端点）使用相同的提示，按首字延迟中位数排名，并为每个模型拟合提示长度曲线。";
    MODELS_VERDICT_CLEAR_WINNER =
        "{model} starts answering first: median TTFT {fastest} ms, against {second_ms} ms for {second}. Pick it where the first token matters.",
        "{model} 最先开始回答：首字延迟中位数 {fastest} 毫秒，{second} 为 {second_ms} 毫秒。在首字速度重要的场景选用它。";
    MODELS_VERDICT_NO_SUCCESSFUL_RUNS =
        "No model answered successfully: fix the errors shown for each run first.",
        "没有任何模型成功回答：请先解决每次运行显示的错误。";
    MODELS_VERDICT_SINGLE_MODEL =
        "Only {model} was measured: median TTFT {fastest} ms. Add models to compare.",
        "只测了 {model}：首字延迟中位数 {fastest} 毫秒。请加入其他模型进行比较。";
    MODELS_VERDICT_TIED =
        "{names} are tied (median TTFT about {fastest} ms, within noise): choose by price, quality or the tail (p95) instead.",
        "{names} 不相上下（首字延迟中位数约 {fastest} 毫秒，差别在噪声之内）：请按价格、质量或长尾（p95）来选择。";
    MODEL_FIT =
        "{model} (fit)",
        "{model}（拟合）";
    MODEL_TOKENS_LEVEL =
        "{model} · {planned_tokens} tokens",
        "{model} · {planned_tokens} 个 token";
    MONITOR =
        "Monitor",
        "监控";
    MONITOR_CHART_TITLE =
        "Rolling TTFT percentiles (ms) per run",
        "每次运行后的滚动首字延迟分位数（毫秒）";
    MONITOR_DESCRIPTION =
        "The form's prompt every N seconds for a while, with rolling p50/p95/p99 against a p95 limit.",
        "每隔 N 秒发送一次表单中的提示，持续一段时间，并把滚动的 p50/p95/p99 与 p95 限值比较。";
    MONITOR_VERDICT_BREACH =
        "Limit exceeded: TTFT {name} is {observed} ms, above {limit} ms. Check the provider's status page, then compare prompt length, concurrency and cache hits with a good period.",
        "超出限值：首字延迟 {name} 为 {observed} 毫秒，高于 {limit} 毫秒。请先查看服务商的状态页，再把提示长度、并发和缓存命中与正常时段对比。";
    MONITOR_VERDICT_FAILING =
        "{failures} of the last {runs} runs failed ({share}): users see errors, not just latency. Open the failed runs for the cause.",
        "最近 {runs} 次运行中有 {failures} 次失败（{share}）：用户看到的是错误，而不只是慢。请打开失败的运行查看原因。";
    MONITOR_VERDICT_HEALTHY =
        "Within the limit: TTFT {name} is {observed} ms (limit {limit} ms).",
        "在限值之内：首字延迟 {name} 为 {observed} 毫秒（限值 {limit} 毫秒）。";
    MONITOR_VERDICT_NOT_ENOUGH_DATA =
        "Waiting for data: the window needs at least {min_window_runs} successful runs.",
        "等待数据：窗口内至少需要 {min_window_runs} 次成功运行。";
    OTLP_CONFIG_ERROR_BAD_HEADER =
        "OTLP header {position} (`{item}`) is not `name=value` with a name of letters, digits and - _ . only. Write them like `x-api-token=abc123,x-team=docs`.",
        "第 {position} 个 OTLP 请求头（`{item}`）不是 `名称=值`，或名称含有字母、数字和 - _ . 以外的字符。请写成 `x-api-token=abc123,x-team=docs`。";
    OTLP_CONFIG_ERROR_BAD_HEADER_VALUE =
        "The value of OTLP header `{name}` contains a line break or control character. Remove it.",
        "OTLP 请求头 `{name}` 的值含有换行或控制字符。请删去。";
    OTLP_CONFIG_ERROR_CREDENTIALS_IN_URL =
        "The OTLP endpoint contains a user name or password (user:pass@host), which browsers refuse to fetch. Remove it and pass a token as an OTLP header instead.",
        "OTLP 端点中含有用户名或密码（user:pass@host），浏览器拒绝请求这种 URL。请删去，并改用 OTLP 请求头传递令牌。";
    OTLP_CONFIG_ERROR_EMPTY_ENDPOINT =
        "No OTLP endpoint was given. Set otlp_endpoint to the collector's OTLP/HTTP base URL, such as https://otel.example.com:4318.",
        "没有填写 OTLP 端点。请把 otlp_endpoint 设为 Collector 的 OTLP/HTTP 基础 URL，例如 https://otel.example.com:4318。";
    OTLP_CONFIG_ERROR_ENDPOINT_TOO_LONG =
        "The OTLP endpoint is {length} bytes long; at most {max} are accepted.",
        "OTLP 端点长 {length} 字节，最多 {max} 字节。";
    OTLP_CONFIG_ERROR_HEADERS_TOO_LONG =
        "The OTLP headers are {length} bytes long; at most {max} are accepted.",
        "OTLP 请求头长 {length} 字节，最多 {max} 字节。";
    OTLP_CONFIG_ERROR_MIXED_CONTENT =
        "This page is served over https, so the browser will block the http:// OTLP endpoint `{endpoint}` (mixed content). Serve the collector over https.",
        "本页面通过 https 提供，浏览器会拦截 http:// 的 OTLP 端点 `{endpoint}`（混合内容）。请让 Collector 使用 https。";
    OTLP_CONFIG_ERROR_MODEL_KEY_IN_HEADERS =
        "The OTLP header `{name}` contains the model's API key. The key is only ever sent to the model endpoint: use the collector's own token here.",
        "OTLP 请求头 `{name}` 中含有模型的 API 密钥。密钥只会发往模型端点：这里请使用 Collector 自己的令牌。";
    OTLP_CONFIG_ERROR_NOT_HTTP_URL =
        "The OTLP endpoint `{endpoint}` is not an http:// or https:// URL with a host. Write it like https://otel.example.com:4318.",
        "OTLP 端点 `{endpoint}` 不是带主机名的 http:// 或 https:// URL。请写成 https://otel.example.com:4318 这样的形式。";
    OTLP_CONFIG_ERROR_QUERY_IN_URL =
        "The OTLP endpoint has a query (?…) or fragment (#…). Give only the base URL, such as https://otel.example.com:4318; put tokens in OTLP headers.",
        "OTLP 端点带有查询（?…）或片段（#…）。只需填写基础 URL，例如 https://otel.example.com:4318；令牌请放在 OTLP 请求头中。";
    OTLP_CONFIG_ERROR_RESERVED_HEADER =
        "The OTLP header `{name}` cannot be set by the page (the browser or the export sets it). Remove it.",
        "页面不能设置 OTLP 请求头 `{name}`（由浏览器或导出本身设置）。请删去。";
    OTLP_CONFIG_ERROR_TOO_MANY_HEADERS =
        "{count} OTLP headers were given; at most {max} are accepted.",
        "填写了 {count} 个 OTLP 请求头，最多 {max} 个。";
    OTLP_REFUSED_ADVICE_CREDENTIALS =
        "It wants credentials: add the collector's token as an extra OTLP header (otlp_headers). Never put the model key there.",
        "它需要凭据：请把 Collector 的令牌作为额外的 OTLP 请求头（otlp_headers）填写。切勿填入模型密钥。";
    OTLP_REFUSED_ADVICE_DROPPED =
        "The export was dropped and will not be retried.",
        "这次导出已丢弃，不会重试。";
    OTLP_REFUSED_ADVICE_MALFORMED =
        "It found the data malformed: this is a bug in TTFT Meter's export; please report it with the collector's message.",
        "它认为数据格式有误：这是 TTFT Meter 导出的缺陷，请附上 Collector 的原话报告。";
    OTLP_REFUSED_ADVICE_NOT_FOUND =
        "Nothing receives OTLP there: the endpoint must be the collector's OTLP/HTTP base URL (such as https://otel.example.com:4318); /v1/metrics and /v1/traces are added to {endpoint}.",
        "那里没有 OTLP 接收器：端点应为 Collector 的 OTLP/HTTP 基础 URL（例如 https://otel.example.com:4318），会在 {endpoint} 后自动加上 /v1/metrics 和 /v1/traces。";
    OTLP_REFUSED_ADVICE_NOT_JSON =
        "It does not take JSON there: check that the endpoint is an OTLP/HTTP receiver.",
        "它在那里不接受 JSON：请确认端点是 OTLP/HTTP 接收器。";
    OTLP_REFUSED_ADVICE_TOO_LARGE =
        "The batch was larger than the collector accepts: raise its max_request_body_size.",
        "这批数据超过了 Collector 接受的大小：请调大它的 max_request_body_size。";
    OTLP_SEND_BUSY =
        "The OpenTelemetry collector at {endpoint} is busy (HTTP {status}); the export will be retried after a pause. The measurements are kept.",
        "{endpoint} 的 OpenTelemetry Collector 繁忙（HTTP {status}），稍后会重试导出。测量结果已保留。";
    OTLP_SEND_COLLECTOR_SAID =
        " The collector said: \"{detail}\"",
        "Collector 原话：“{detail}”";
    OTLP_SEND_GAVE_UP =
        "The export was dropped after {attempts} attempts. {last}",
        "尝试 {attempts} 次后放弃了这次导出。{last}";
    OTLP_SEND_OVERFLOW =
        "{dropped_runs} runs were not exported: the export queue was full while the collector at {endpoint} could not take them. The runs themselves are kept on this page.",
        "有 {dropped_runs} 次运行没有导出：{endpoint} 的 Collector 无法接收时导出队列已满。这些运行本身仍保留在本页面。";
    OTLP_SEND_PARTIALLY_REJECTED =
        "The OpenTelemetry collector at {endpoint} accepted the export but rejected {rejected} items.{detail} The measurements are kept.",
        "{endpoint} 的 OpenTelemetry Collector 接受了导出，但拒绝了其中 {rejected} 项。{detail}测量结果已保留。";
    OTLP_SEND_REFUSED =
        "The OpenTelemetry collector at {endpoint} refused the export (HTTP {status}). {advice}{detail} The measurements are kept.",
        "{endpoint} 的 OpenTelemetry Collector 拒绝了导出（HTTP {status}）。{advice}{detail}测量结果已保留。";
    OTLP_SEND_TIMED_OUT =
        "The OpenTelemetry collector at {endpoint} did not answer in time. The measurements are kept; the export will be retried.",
        "{endpoint} 的 OpenTelemetry Collector 没有及时响应。测量结果已保留，导出稍后会重试。";
    OTLP_SEND_UNREACHABLE =
        "The OpenTelemetry collector at {endpoint} could not be reached from this page. Either it is not running or not reachable from this network, or it refused this page's origin under CORS: its otlp receiver must list {origin} in protocols.http.cors.allowed_origins (and any extra header in cors.allowed_headers). The browser does not say which. The measurements are kept; only the export failed, and it will be retried.",
        "无法从本页面连接到 {endpoint} 的 OpenTelemetry Collector：它可能没有运行或在当前网络不可达，也可能因 CORS 拒绝了本页面的来源：其 otlp 接收器须在 protocols.http.cors.allowed_origins 中列出 {origin}（额外的请求头还须列在 cors.allowed_headers 中）。浏览器不会说明是哪一种。测量结果已保留，只是导出失败，稍后会重试。";
    PARAM_CONCURRENCY_LEVELS =
        "Concurrency levels",
        "并发档位";
    PARAM_DURATION_S =
        "For (s)",
        "持续（秒）";
    PARAM_ERROR =
        "{label}: {problem}",
        "{label}：{problem}";
    PARAM_INTERVAL_S =
        "Every (s)",
        "间隔（秒）";
    PARAM_MAX_TOKENS_VALUES =
        "max_tokens values",
        "max_tokens 取值";
    PARAM_MODELS =
        "Models (comma-separated)",
        "模型（逗号分隔）";
    PARAM_MODELS_PLACEHOLDER =
        "the form's model",
        "表单中的模型";
    PARAM_P95_LIMIT_MS =
        "p95 limit (ms)",
        "p95 限值（毫秒）";
    PARAM_PROMPT_SIZE =
        "Prompt size (tokens)",
        "提示长度（token）";
    PARAM_PROMPT_SIZES =
        "Prompt sizes (tokens)",
        "提示长度（token）";
    PARAM_QUESTION =
        "Question",
        "问题";
    PARAM_RUNS =
        "Runs",
        "运行次数";
    PARAM_RUNS_IN_FLIGHT =
        "Runs in flight",
        "同时进行的运行";
    PARAM_RUNS_PER_LEVEL =
        "Runs per level",
        "每档运行次数";
    PARAM_RUNS_PER_SIZE =
        "Runs per size",
        "每种长度的运行次数";
    PARAM_WAVES_PER_LEVEL =
        "Waves per level",
        "每档波数";
    PARAM_WINDOW_RUNS =
        "Window (runs)",
        "窗口（次）";
    PERCENTILE_LIMIT =
        "{name} limit",
        "{name} 限值";
    PLANNED_TOKENS =
        "planned tokens",
        "计划 token";
    PREFILL =
        "prefill",
        "预填充";
    PREFIX_CACHE =
        "Prefix cache",
        "前缀缓存";
    PROMPT_FILLER =
        "The time to first token is the wait a person sees before an answer starts. It is the sum of the network, the queue and the prefill, which reads the whole prompt before the first token exists. A long prompt takes longer to read, a short one is quick, and the number of tokens asked for as output does not change it. A cache can skip the part of a prompt that was seen before, but only when the start is the same. When many requests arrive at once, some of them wait for a free slot, and a long prefill can hold a short request back.",
        "首字延迟是用户按下发送到看到第一个字的等待时间。它由网络时间，排队时间和预填充时间组成，预填充要先读完整个提示才能生成第一个字。提示越长读得越久，输出长度的上限并不改变它。前缀缓存可以跳过以前见过的部分，但只有开头完全相同才会命中。许多请求同时到达时，一部分要等待空闲的位置，一个很长的预填充会拖住后面的短请求。";
    PROMPT_LENGTH =
        "Prompt length",
        "提示长度";
    PROMPT_LENGTH_CHART_TITLE =
        "TTFT (ms) against prompt tokens",
        "首字延迟（毫秒）与提示 token 数";
    PROMPT_LENGTH_DESCRIPTION =
        "TTFT against the number of prompt tokens, with a linear and a quadratic fit: what prefill costs per 1,000 tokens, and whether attention makes it grow faster.",
        "首字延迟与提示 token 数的关系，并做线性和二次拟合：每 1000 个 token 的预填充成本，以及注意力是否让它增长得更快。";
    PROMPT_LENGTH_NOTE_FIT =
        "Prefill cost: {prefill} ms per 1,000 prompt tokens.{fitted}",
        "预填充成本：每 1000 个提示 token {prefill} 毫秒。{fitted}";
    PROMPT_LENGTH_VERDICT_NEAR_LINEAR =
        "TTFT grows about linearly with prompt length: prefill costs {cost} ms per 1,000 prompt tokens (R² {r2}). Shorten long prompts or cache their shared prefix to cut TTFT.",
        "首字延迟随提示长度近似线性增长：每 1000 个提示 token 的预填充约 {cost} 毫秒（R² {r2}）。缩短长提示或缓存共同前缀可以降低首字延迟。";
    PROMPT_LENGTH_VERDICT_NOT_ENOUGH_DATA =
        "Not enough successful runs to fit a line: at least 3 prompt sizes need a TTFT. Check the failed runs and try again.",
        "成功的运行不够，无法拟合直线：至少需要 3 种提示长度都有首字延迟。请检查失败的运行后重试。";
    PROMPT_LENGTH_VERDICT_NO_CLEAR_TREND =
        "TTFT does not follow prompt length (R² {r2}): network or queueing delays vary more than prefill. Repeat with more runs or larger prompts.",
        "首字延迟与提示长度没有明显关系（R² {r2}）：网络或排队的波动大于预填充时间。请增加运行次数或使用更长的提示再测。";
    PROMPT_LENGTH_VERDICT_SUPERLINEAR =
        "TTFT grows faster than linearly with prompt length (attention cost visible): at {largest} tokens the quadratic term is {share} of TTFT and each extra 1,000 tokens costs {marginal} ms (average {average} ms). Keep prompts short, split long documents, or cache the shared prefix.",
        "首字延迟随提示长度超线性增长（注意力的平方项开始显现）：在 {largest} 个 token 时平方项占首字延迟的 {share}，每多 1000 个 token 要多花 {marginal} 毫秒（平均 {average} 毫秒）。请保持提示简短、拆分长文档，或缓存共同前缀。";
    PROMPT_TOKENS =
        "prompt tokens",
        "提示 token";
    PROMPT_TOKENS_USAGE =
        "prompt tokens (usage)",
        "提示 token（用量）";
    QUADRATIC_FIT =
        "quadratic fit",
        "二次拟合";
    RANK =
        "rank",
        "排名";
    REASONING =
        "Reasoning",
        "推理";
    REASONING_CHART_TITLE =
        "First reasoning and first answer token (ms) per run",
        "每次运行的首个思考与首个回答 token（毫秒）";
    REASONING_COLUMN =
        "reasoning",
        "思考";
    REASONING_DEFAULT_QUESTION =
        "A train leaves at 9:40 and arrives at 13:15. How long is the trip? Answer in one line.",
        "火车九点四十分出发，十三点十五分到达。路上用了多长时间？请用一句话回答。";
    REASONING_DESCRIPTION =
        "The same question several times with reasoning asked for: the first reasoning token against the first answer token, and how much of the wait is thinking.",
        "同一个问题问多次并要求推理：首个思考 token 与首个回答 token 的时间，以及等待中有多少是在思考。";
    REASONING_SHARE =
        "reasoning share",
        "思考占比";
    REASONING_VERDICT_MOSTLY_THINKING =
        "Users wait mostly for thinking: {share} of the {ttfa} ms before the first answer token is reasoning ({thinking} ms). Stream and show the reasoning (or a progress indicator) so the screen is not blank, or lower the reasoning effort or thinking budget.",
        "用户主要在等模型思考：第一个回答字之前的 {ttfa} 毫秒里有 {share} 是思考（{thinking} 毫秒）。请流式显示思考过程（或进度提示）以免屏幕空白，或降低推理强度、思考预算。";
    REASONING_VERDICT_NOT_ENOUGH_DATA =
        "No run reached an answer: fix the errors first, and leave max_tokens room for the thinking (it counts against the limit).",
        "没有任何运行得到回答：请先解决错误，并给 max_tokens 留出思考的余量（思考也计入上限）。";
    REASONING_VERDICT_NO_VISIBLE_REASONING =
        "No reasoning text was streamed; the first answer token came after a median of {ttfa} ms. If the model thinks without showing it, that whole wait is blank for the user: ask the provider for reasoning summaries or lower the reasoning effort.",
        "没有流式输出思考内容；第一个回答字的中位等待是 {ttfa} 毫秒。如果模型在后台思考而不显示，用户在这段时间里什么也看不到：请向服务商开启思考摘要，或降低推理强度。";
    REASONING_VERDICT_THINKING_MINOR =
        "Thinking is a minor part of the wait: {share} of the {ttfa} ms before the first answer token. Look at prefill, network and queueing first.",
        "思考只占等待的一小部分：第一个回答字之前的 {ttfa} 毫秒里只有 {share}。请先查看预填充、网络和排队。";
    REPETITION =
        "repetition",
        "重复";
    RUN =
        "run",
        "运行";
    RUNS =
        "runs",
        "次数";
    RUN_NUMBER =
        "run {number}",
        "第 {number} 次";
    SERVER_QUEUEING_WAVES =
        "server queueing (waves)",
        "服务器排队（波）";
    SERVER_TOKENIZER =
        "server tokenizer",
        "服务器分词器";
    SERVER_USAGE =
        "server usage",
        "服务器用量";
    SHARE_ERROR_DAMAGED =
        "This shared link is damaged ({detail}). It was probably cut short when it was copied; ask for the whole link.",
        "这个分享链接已损坏（{detail}）。可能在复制时被截断了；请索取完整的链接。";
    SHARE_ERROR_INVALID =
        "This shared link's data is not valid ({detail}). It was not made by this version of TTFT Meter, or it was edited.",
        "这个分享链接的数据无效（{detail}）。它不是此版本的 TTFT Meter 生成的，或被修改过。";
    SHARE_ERROR_LINK_TOO_LONG =
        "This shared link is {bytes} bytes long; TTFT Meter makes and reads links of at most {max}. It was probably not made by TTFT Meter.",
        "这个分享链接长 {bytes} 字节；TTFT Meter 生成和读取的链接最多 {max} 字节。它可能不是 TTFT Meter 生成的。";
    SHARE_ERROR_NOT_A_SHARE_LINK =
        "This link holds no shared results (its address has no #share=v1. part).",
        "这个链接不含分享的结果（地址中没有 #share=v1. 部分）。";
    SHARE_ERROR_NO_RUNS =
        "There are no runs to share yet.",
        "还没有可以分享的运行。";
    SHARE_ERROR_TOO_LARGE =
        "The results do not fit in a link ({bytes} bytes; at most {max}). Leave out the prompt or shorten the labels.",
        "结果放不进一个链接（{bytes} 字节，最多 {max}）。请不要附带提示词，或缩短标签。";
    SIZING_ERROR_NOTHING_FITS =
        "No prompt fits: the server's context window is {window} tokens and {output} are asked for the output. Lower max_tokens or use a model with a larger context.",
        "没有任何提示能放下：服务器的上下文窗口为 {window} 个 token，而输出要求 {output} 个。请降低 max_tokens，或换用上下文更大的模型。";
    SIZING_NOTE_CALIBRATED =
        "Prompts were sized to the server's own token count ({source}): {requests} counting requests (not measured runs) found {ratio} server tokens per filler token, then checked every size.",
        "提示长度按服务器自己的 token 计数（{source}）确定：{requests} 次计数请求（不计入测量）测得每个填充 token 相当于 {ratio} 个服务器 token，并逐一核对了每种长度。";
    SIZING_NOTE_COUNTS_SOURCE =
        "Prompt token counts (chart, table, fits): {source}.",
        "提示 token 数（图表、表格、拟合）来自：{source}。";
    SIZING_NOTE_ESTIMATE =
        "Prompt sizes are estimates (ttft-sim's rule: 4 characters or one CJK character per token): the server offered no way to count them. A real tokenizer can count 2× or more; the token axis is only as good as this estimate.",
        "提示长度是估算值（按 ttft-sim 的规则：4 个字符或 1 个汉字算 1 个 token）：服务器没有提供计数方式。真实的分词器可能多出 2 倍甚至更多；token 轴的准确度取决于这个估算。";
    SLO_PARSE_ERROR_BAD_GOODPUT =
        "Item {position}: goodput must be a share between 0 and 1 or a percentage up to 100% (e.g. `goodput>=95%`), not `{value}`.",
        "第 {position} 项：goodput 须为 0 到 1 之间的比例或不超过 100% 的百分比（例如 `goodput>=95%`），而不是 `{value}`。";
    SLO_PARSE_ERROR_BAD_VALUE =
        "Item {position}: `{value}` is not a number{unit_hint}.",
        "第 {position} 项：`{value}` 不是数字{unit_hint}。";
    SLO_PARSE_ERROR_EMPTY =
        "No SLO was given. Write thresholds such as `perceived_ttfa_ms:p95<=1500,ttfa_ms<=800`.",
        "没有填写 SLO。请写阈值，例如 `perceived_ttfa_ms:p95<=1500,ttfa_ms<=800`。";
    SLO_PARSE_ERROR_EMPTY_ITEM =
        "Item {position} of the SLO is empty. Remove the extra comma.",
        "SLO 第 {position} 项是空的。请删去多余的逗号。";
    SLO_PARSE_ERROR_GOODPUT_FORM =
        "Item {position}: goodput is written once, as `goodput>=95%` (the share of runs meeting every per-run threshold).",
        "第 {position} 项：goodput 只写一次，形如 `goodput>=95%`（满足全部单次阈值的运行所占比例）。";
    SLO_PARSE_ERROR_GOODPUT_WITHOUT_PER_RUN_THRESHOLD =
        "A goodput target needs at least one per-run threshold (such as `ttfa_ms<=800`) for runs to meet.",
        "goodput 目标需要至少一个单次阈值（例如 `ttfa_ms<=800`）。";
    SLO_PARSE_ERROR_MISSING_COMPARISON =
        "Item {position} (`{item}`) has no comparison. Write it as `metric<=value`, e.g. `ttfa_ms<=800`.",
        "第 {position} 项（`{item}`）没有比较符。请写成 `指标<=数值`，例如 `ttfa_ms<=800`。";
    SLO_PARSE_ERROR_NEGATIVE_VALUE =
        "Item {position}: the limit {value} is negative; latencies and throughputs are never below 0.",
        "第 {position} 项：阈值 {value} 是负数；延迟和吞吐不会小于 0。";
    SLO_PARSE_ERROR_TOO_LONG =
        "The SLO text is {length} bytes long; at most {max} are accepted. Remove some thresholds.",
        "SLO 文本长 {length} 字节，最多 {max} 字节。请删去一些阈值。";
    SLO_PARSE_ERROR_TOO_MANY =
        "The SLO has {count} items; at most {max} are accepted. Keep the ones that matter.",
        "SLO 有 {count} 项，最多 {max} 项。请只保留重要的。";
    SLO_PARSE_ERROR_UNKNOWN_METRIC =
        "Item {position}: `{name}` is not a metric. Use one of: {known}.",
        "第 {position} 项：`{name}` 不是指标。可用：{known}。";
    SLO_PARSE_ERROR_UNKNOWN_STATISTIC =
        "Item {position}: `{statistic}` is not a statistic. Use p50, p90, p95, p99 (any pNN from p0 to p100), median, mean or max.",
        "第 {position} 项：`{statistic}` 不是统计量。可用 p50、p90、p95、p99（p0 到 p100 的任意 pNN）、median、mean 或 max。";
    STARTED =
        "started",
        "开始";
    STREAMS =
        "streams",
        "并发流";
    STREAMS_WAVE_LEVEL =
        "{level} streams, wave {wave}",
        "{level} 个并发流，第 {wave} 波";
    TAILS =
        "Tails",
        "长尾";
    TAILS_CHART_TITLE =
        "TTFT (ms) of every run against its prompt tokens",
        "每次运行的首字延迟（毫秒）与提示 token 数";
    TAILS_DESCRIPTION =
        "Many runs of mixed prompt lengths kept in flight together: p95 and p99 per length, and whether long prefills hold short prompts back (head-of-line blocking).",
        "多种提示长度的大量运行同时进行：每种长度的 p95 和 p99，以及长预填充是否拖住短提示（队头阻塞）。";
    TAILS_VERDICT_HEAD_OF_LINE_SUSPECTED =
        "Head-of-line blocking suspected: prompts of {planned_tokens} tokens have p95 {p95}× and p99 {p99}× their median{modes}. A long prefill delays others; chunked prefill lowers the tail (enable it on your server, e.g. vLLM's enable_chunked_prefill), as does keeping long prompts on separate capacity.",
        "疑似队头阻塞：{planned_tokens} 个 token 的提示 p95 是中位数的 {p95} 倍，p99 是 {p99} 倍{modes}。一个长预填充会拖慢其他请求；分块预填充可以降低长尾（在服务器上开启，例如 vLLM 的 enable_chunked_prefill），也可以把长提示放到单独的算力上。";
    TAILS_VERDICT_NOT_ENOUGH_DATA =
        "Not enough runs to judge the tail: a prompt size needs at least {min_runs} successful runs. Run more.",
        "运行次数不够，无法判断长尾：每种提示长度至少需要 {min_runs} 次成功运行。请多运行几次。";
    TAILS_VERDICT_TIGHT_TAILS =
        "Tails are tight: for every prompt size p95 is at most {ratio}× the median, with a single mode. No sign of head-of-line blocking.",
        "长尾很短：每种提示长度的 p95 最多是中位数的 {ratio} 倍，且只有一个峰。没有队头阻塞的迹象。";
    TAILS_VERDICT_TWO_MODES =
        " and two modes (fast alone, slow behind another prompt)",
        "，并且呈双峰（单独时快，排在别的提示后面时慢）";
    TIME =
        "time",
        "时间";
    TOKENS_LEVEL =
        "{tokens} tokens",
        "{tokens} 个 token";
    TTFT =
        "TTFT",
        "首字延迟";
    TTFT_MS_PER_REPETITION_BY_ARM =
        "TTFT (ms) per repetition, by arm",
        "各组每次重复的首字延迟（毫秒）";
    TTFT_SAVED_BY_THE_CACHE_COLD =
        "TTFT saved by the cache (cold p50 − warm p50): {saved} ms.",
        "缓存节省的首字延迟（冷 p50 − 热 p50）：{saved} 毫秒。";
    TWO_MODES =
        "two modes",
        "双峰";
    WARM =
        "warm",
        "热";
    WARM_PRIMING =
        "warm (priming)",
        "热（预热）";
    WAVES =
        "waves",
        "波数";
}
