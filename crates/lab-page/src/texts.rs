//! The catalogue of this crate's texts: one line per text, English then Simplified
//! Chinese (docs/DESIGN.md §4, "One shape for UI text"). Each is a `ttft_core::text::Text`.

ttft_core::texts! {
    catalogue = ttft_core::text::catalogue::LAB_PAGE;
    ALL_RUNS =
        "All runs",
        "全部运行";
    ALSO_SEND_THE_PROMPT_TEXT_OFF =
        "Also send the prompt text (off: only numbers and names are sent)",
        "同时发送提示词文本（关闭时只发送数值和名称）";
    APPLY =
        "Apply",
        "应用";
    BACK_TO_THE_WIDGET =
        "← Back to the widget",
        "← 返回小组件";
    BARS_PER_PHASE_OF_THE_RUN =
        "Bars per phase of the run",
        "运行各阶段的条形图";
    /// Under a chart's data table that shows only its first rows.
    CHART_TABLE_FIRST_ROWS =
        "The first {max_table_rows} of {total} rows; export JSON or CSV for all of them.",
        "仅显示前 {max_table_rows} 行（共 {total} 行）；导出 JSON 或 CSV 可获得全部数据。";
    /// The summary table's cohort headings.
    COHORT_ALL_MEASURED_RUNS =
        "all measured runs",
        "全部计入的运行";
    COHORT_COLD_NEW_CONNECTION =
        "cold (new connection)",
        "冷（新连接）";
    COHORT_WARM_REUSED_CONNECTION =
        "warm (reused connection)",
        "热（复用连接）";
    /// Column headers (charts' data tables, the experiments list, the shared view).
    COLUMN_CONNECTION =
        "connection",
        "连接";
    COLUMN_ENDED =
        "ended",
        "结束";
    COLUMN_EXPERIMENT =
        "experiment",
        "实验";
    COLUMN_FROM_MS =
        "from (ms)",
        "起（毫秒）";
    COLUMN_GAP =
        "gap",
        "间隔";
    COLUMN_METRIC =
        "metric",
        "指标";
    COLUMN_MODEL =
        "model",
        "模型";
    COLUMN_OUTCOME =
        "outcome",
        "结果";
    COLUMN_PHASE =
        "phase",
        "阶段";
    COLUMN_RUN =
        "run",
        "运行";
    COLUMN_RUNS =
        "runs",
        "次数";
    COLUMN_TO_MS =
        "to (ms)",
        "止（毫秒）";
    COLUMN_VERDICT =
        "verdict",
        "结论";
    COPY_LINK =
        "Copy link",
        "复制链接";
    COPY_SUMMARY =
        "Copy summary",
        "复制摘要";
    DATA_TABLE =
        "Data table",
        "数据表";
    DELETE =
        "Delete",
        "删除";
    DELETE_ALL_RUNS =
        "Delete all runs",
        "删除全部运行";
    DELETE_RUN =
        "Delete run {number}",
        "删除第 {number} 次运行";
    DISTRIBUTION_OF =
        "Distribution of {metric}",
        "{metric} 的分布";
    DOWNLOAD_PNG =
        "Download PNG",
        "下载 PNG";
    DOWNLOAD_SVG =
        "Download SVG",
        "下载 SVG";
    EXPERIMENT =
        "Experiment",
        "实验";
    EXPERIMENTS =
        "Experiments",
        "实验";
    /// Under the experiments heading.
    EXPERIMENTS_INTRO =
        "Planned series of runs against the endpoint above; each ends with a verdict.",
        "针对上方接口的成组运行；每个实验最后给出结论。";
    EXPERIMENTS_THIS_SESSION =
        "Experiments this session",
        "本次会话的实验";
    /// The experiment's progress line.
    EXPERIMENT_DONE =
        "Done: {done} runs.",
        "完成：共 {done} 次运行。";
    /// The "ended" cell of the experiments list.
    EXPERIMENT_ENDED_COMPLETE =
        "complete",
        "完成";
    EXPERIMENT_ENDED_STOPPED =
        "stopped",
        "已停止";
    /// Why an experiment does not start.
    EXPERIMENT_NO_KEEPER =
        "This page keeps no runs (no session, host channel or fleet settings), so an experiment cannot start here.",
        "此页面没有保存运行的位置（没有会话、宿主通道或监控设置），无法在此开始实验。";
    EXPERIMENT_PREPARING =
        "Asking the server for its context window and token counts…",
        "正在向服务器查询上下文窗口和 token 数…";
    EXPERIMENT_RUN_OF =
        "Run {next} of {planned}…",
        "第 {next}/{planned} 次运行…";
    EXPERIMENT_STOPPED_AFTER =
        "Stopped after {done} of {planned} runs; the results so far are kept.",
        "已在 {done}/{planned} 次运行后停止；已有结果保留。";
    EXPORT_AND_IMPORT =
        "Export and import",
        "导出与导入";
    EXPORT_CSV =
        "Export CSV",
        "导出 CSV";
    EXPORT_JSON =
        "Export JSON",
        "导出 JSON";
    EXPORT_TO_THIS_COLLECTOR =
        "Export to this collector",
        "导出到此 Collector";
    EXTRA_COLLECTOR_HEADERS_NAME_VALUE_COMMA =
        "Extra collector headers (name=value, comma-separated; never the model key)",
        "Collector 额外请求头（名称=值，逗号分隔；切勿填入模型密钥）";
    /// The facts a share link carries, above the shared view's charts.
    FACT_ENDPOINT_HOST =
        "endpoint host",
        "接口主机";
    FACT_ENVIRONMENT =
        "environment",
        "环境";
    FACT_LINK_MADE =
        "link made",
        "链接生成于";
    FACT_MEASURED_WITH =
        "measured with",
        "测量工具";
    FACT_MODEL =
        "model",
        "模型";
    FACT_PROTOCOL =
        "protocol",
        "协议";
    FACT_SLO =
        "SLO",
        "SLO";
    FINISHED_RUNS_ARE_KEPT_IN_THIS =
        "Finished runs are kept in this browser's local storage (the last 1000), never the API key.",
        "已完成的运行保存在此浏览器的本地存储中（最多 1000 次），从不保存 API 密钥。";
    FLEET_MEASUREMENT_OPENTELEMETRY_EXPORT_TRACE_CONTEXT =
        "Fleet measurement: OpenTelemetry export, trace context, SLOs",
        "群体测量：OpenTelemetry 导出、追踪上下文、SLO";
    HISTOGRAM_AND_CUMULATIVE_DISTRIBUTION =
        "Histogram and cumulative distribution",
        "直方图与累积分布";
    HISTORY_KEPT_IN_THIS_BROWSER =
        "History (kept in this browser)",
        "历史记录（保存在此浏览器中）";
    IMPORTED_RUNS =
        "Imported {count} runs.",
        "已导入 {count} 次运行。";
    IMPORT_JSON_REPLACES_THE_HISTORY =
        "Import JSON (replaces the history)",
        "导入 JSON（替换历史记录）";
    INCLUDE_THE_PROMPT =
        "Include the prompt",
        "附带提示词";
    INTER_TOKEN_LATENCY_OVER_THE_STREAM =
        "Inter-token latency over the stream (selected run)",
        "输出过程中的 token 间隔（所选运行）";
    LINE_CHART_OF_INTER_TOKEN_GAPS =
        "Line chart of inter-token gaps",
        "token 间隔折线图";
    LINE_CHART_OF_TTFT_PER_RUN =
        "Line chart of TTFT per run",
        "每次运行 TTFT 折线图";
    /// After "Copy link" without a clipboard; `{size}` as in [`LINK_COPIED`].
    LINK_CLIPBOARD_UNAVAILABLE =
        "The clipboard is not available here: copy the link below. {size}",
        "此处无法使用剪贴板：请复制下方的链接。{size}";
    /// After "Copy link"; `{size}` is [`LINK_HOLDS_ALL_RUNS`] or [`LINK_HOLDS_NEWEST_RUNS`].
    LINK_COPIED =
        "Link copied. {size}",
        "链接已复制。{size}";
    LINK_HOLDS_ALL_RUNS =
        "The link holds all {kept} runs ({bytes} bytes).",
        "链接包含全部 {kept} 次运行（{bytes} 字节）。";
    LINK_HOLDS_NEWEST_RUNS =
        "The link holds the newest {kept} of {total} runs ({bytes} bytes; a link holds at most {max_bytes}).",
        "链接包含最新的 {kept}/{total} 次运行（{bytes} 字节；链接最多 {max_bytes} 字节）。";
    MEASURE_IT_YOURSELF =
        "Measure it yourself",
        "自己测量";
    NO_RUNS_YET_PRESS_SEND =
        "No runs yet: press Send.",
        "还没有运行记录：请点击“发送”。";
    OPENTELEMETRY_COLLECTOR_OTLP_HTTP_BASE_URL =
        "OpenTelemetry collector (OTLP/HTTP base URL)",
        "OpenTelemetry Collector（OTLP/HTTP 基础 URL）";
    /// The OpenTelemetry status line while no problem is reported.
    OTLP_STATUS =
        "OpenTelemetry export to {endpoint}: {sent} runs sent, {waiting} waiting (sent between runs, never during one).",
        "OpenTelemetry 导出到 {endpoint}：已发送 {sent} 次运行，{waiting} 次等待中（只在两次运行之间发送，从不在运行中发送）。";
    OUTCOME_FAILED =
        "failed",
        "失败";
    /// A run's outcome in the shared view's runs table.
    OUTCOME_FAILED_WITH_CODE =
        "failed: {code}",
        "失败：{code}";
    /// A run's outcome (history list, shared view).
    OUTCOME_OK =
        "ok",
        "成功";
    OUTCOME_OK_TTFT_ONLY =
        "ok (TTFT only)",
        "成功（只测首字）";
    /// The waterfall's phases.
    PHASE_ANSWER =
        "answer",
        "回答";
    PHASE_CONNECTION_SETUP =
        "connection setup",
        "建立连接";
    PHASE_PAINT_DELAY =
        "paint delay",
        "绘制延迟";
    PHASE_REASONING =
        "reasoning",
        "推理";
    PHASE_WAITING =
        "waiting (queue + prefill)",
        "等待（排队 + 预填充）";
    PROBE_DONE =
        "Probe mode finished its {runs} runs; it will not run again in this tab.",
        "探测模式已完成 {runs} 次运行；在此标签页中不会再次运行。";
    /// The probe-mode notice.
    PROBE_RUNNING =
        "This page is measuring how fast {host} answers from your browser: {runs} short requests, now (probe mode, set by the site that embeds this widget). The results go to that site. Stop ends it.",
        "本页面正在从你的浏览器测量 {host} 的响应速度：现在发送 {runs} 个简短请求（探测模式，由嵌入本组件的网站设置）。结果会发送给该网站。点击“停止”可结束。";
    PROBE_STOPPED =
        "Probe mode was stopped; it will not run again in this tab.",
        "探测模式已停止；在此标签页中不会再次运行。";
    REALLY_DELETE_ALL_RUNS_CLICK_AGAIN =
        "Really delete all runs? Click again",
        "确定删除全部运行？再点一次";
    RESULTS =
        "Results",
        "结果";
    RUNS =
        "Runs",
        "运行记录";
    RUNS_MADE_WITH_SEND =
        "Runs made with Send",
        "通过“发送”进行的运行";
    /// A run's cohort in the shared view's runs table.
    RUN_COHORT_COLD =
        "cold",
        "冷";
    RUN_COHORT_WARM =
        "warm",
        "热";
    RUN_EXPERIMENT =
        "Run experiment",
        "运行实验";
    SEND_TRACEPARENT_W3C_TRACE_CONTEXT_WITH =
        "Send traceparent (W3C trace context) with each request, so a tracing server joins the browser's span",
        "每次请求发送 traceparent（W3C 追踪上下文），让做追踪的服务器接入浏览器的 span";
    SENT_PER_RUN_THE_TIMES_TOKEN =
        "Sent per run: the times, token counts, outcome, model, the endpoint's host and port, the browser and network type. Never the key, the answer, or the endpoint's path.",
        "每次运行发送：各项时间、token 数、结果、模型、接口的主机和端口、浏览器和网络类型。从不发送密钥、回答内容或接口路径。";
    SHARED_HEADING =
        "Shared result (read-only)",
        "分享的结果（只读）";
    /// The shared (read-only) view of a share link.
    SHARED_NOTICE =
        "You are looking at results someone measured and shared by link ({count} runs). They are shown, not run again, and they are not added to your history.",
        "这是他人测量并通过链接分享的结果（{count} 次运行）。这里只展示、不重新运行，也不会加入你的历史记录。";
    SHARED_PROMPT =
        "Prompt:",
        "提示词：";
    SHARED_SUMMARY_NOTE =
        "Successful runs only, recomputed from the runs in the link (times kept to 0.1 ms).",
        "仅统计成功的运行，由链接中的运行重新计算（时间保留到 0.1 毫秒）。";
    SHARE_LINK =
        "Share link",
        "分享链接";
    SHOW =
        "Show",
        "显示";
    SLOS_FOR_EXAMPLE_PERCEIVED_TTFA_MS =
        "SLOs (for example perceived_ttfa_ms:p95<=1.5s, ttfa_ms<=800, goodput>=95%)",
        "SLO（例如 perceived_ttfa_ms:p95<=1.5s, ttfa_ms<=800, goodput>=95%）";
    /// The SLO summary: good runs and goodput, then per threshold the runs that met it.
    SLO_GOODPUT =
        "good runs {good} of {counted} · goodput {goodput} (target {target})",
        "达标运行 {good}/{counted} · goodput {goodput}（目标 {target}）";
    SLO_MET =
        "SLO met",
        "达到 SLO";
    SLO_MISSED =
        "SLO missed",
        "未达到 SLO";
    SLO_NO_RUNS_YET =
        "SLO: no runs yet",
        "SLO：尚无运行";
    SLO_THRESHOLD_MET_RUNS =
        "{met} of {counted} runs",
        "{met}/{counted} 次运行";
    STOP =
        "Stop",
        "停止";
    STOP_EXPORTING =
        "Stop exporting",
        "停止导出";
    SUCCESSFUL_MEASURED_RUNS_ONLY_WARM_UPS =
        "Successful measured runs only (warm-ups and failures left out). Percentiles: linear interpolation between closest ranks (numpy's default), as AIPerf reports them.",
        "仅统计成功且计入的运行（不含预热和失败）。百分位数：最近秩之间线性插值（numpy 默认方法），与 AIPerf 一致。";
    SUMMARY =
        "Summary",
        "汇总";
    SUMMARY_CLIPBOARD_UNAVAILABLE =
        "The clipboard is not available here: select the text below and copy it.",
        "此处无法使用剪贴板：请选中下方文本并复制。";
    /// The export bar's status after "Copy summary".
    SUMMARY_COPIED =
        "Summary copied.",
        "摘要已复制。";
    SUMMARY_TEXT =
        "Summary text",
        "摘要文本";
    /// Under an experiment's report: the requests made; `{priming}` is [`TALLY_PRIMING`] or empty, `{calibration}` [`TALLY_CALIBRATION`] or empty.
    TALLY =
        "{measured} of {planned} planned runs made ({failed} failed){priming}{calibration}.",
        "已完成计划中 {planned} 次运行里的 {measured} 次（{failed} 次失败）{priming}{calibration}。";
    TALLY_CALIBRATION =
        "; {calibration_requests} calibration requests counted tokens (not measured runs)",
        "；另有 {calibration_requests} 次校准请求用于计数 token（不是测量运行）";
    TALLY_PRIMING =
        "; {priming} of them priming runs, in no statistic",
        "；其中 {priming} 次为预热请求，不计入统计";
    TIME_TO_FIRST_TOKEN_PER_RUN =
        "Time to first token per run",
        "每次运行的首 token 时间";
    WATERFALL_OF_THE_SELECTED_RUN =
        "Waterfall of the selected run",
        "所选运行的瀑布图";
}
