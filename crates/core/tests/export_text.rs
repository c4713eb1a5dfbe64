//! The plain-text summary, against text written by hand from the fixture's known timings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::export_fixture as fixture;

use ttft_core::export::{summary_text, summary_text_with};
use ttft_core::lang::Lang;
use ttft_core::record::Transport;
use ttft_core::timeline::RunsSummary;

// fixture::six_runs(): statistics cover runs 2–5 (run 1 is a warm-up, run 6 failed).
// TTFT [1000 (cold), 200, 300, 250], sorted [200, 250, 300, 1000], h = 3p:
//   p50 = 250 + 0.5·50 = 275, p95 = 300 + 0.85·700 = 895, p99 = 300 + 0.97·700 = 979,
//   mean 437.5. Warm only [200, 250, 300], h = 2p: p95 = 250 + 0.9·50 = 295, p99 = 299.
// perceived_ttfa = ttft + 21: [221, 271, 321, 1021]: 296, 916, 1000, mean 458.5.
// e2e = ttft + 61: [261, 311, 361, 1061]: 336, 956, 1040, mean 498.5.
// itl = 60 ms / 3 gaps = 20; output_tps = 4 chunks / 0.06 s = 66.7.
const EXPECTED_EN: &str = "\
TTFT Meter results
Endpoint:    https://api.openai.com/v1/chat/completions
Model:       gpt-4o-mini
Protocol:    OpenAI Chat Completions
Runs:        6 (4 ok, 1 failed, 1 warm-up not in statistics)
Connections: 1 cold (new connection), 3 warm (reused), 0 unknown
Failures:    key_refused ×1

metric               n       p50       p95       p99       min       max      mean
ttft_ms              4     275.0     895.0     979.0     200.0    1000.0     437.5
ttft_ms, cold        1    1000.0    1000.0    1000.0    1000.0    1000.0    1000.0
ttft_ms, warm        3     250.0     295.0     299.0     200.0     300.0     250.0
ttfa_ms              4     275.0     895.0     979.0     200.0    1000.0     437.5
perceived_ttfa_ms    4     296.0     916.0    1000.0     221.0    1021.0     458.5
itl_ms               4      20.0      20.0      20.0      20.0      20.0      20.0
e2e_ms               4     336.0     956.0    1040.0     261.0    1061.0     498.5
output_tps           4      66.7      66.7      66.7      66.7      66.7      66.7

Statistics over the 4 successful runs, warm-up runs excluded.
Percentiles: linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's default, as AIPerf).
Times in ms from the request start (perceived: from the click); output_tps in tokens/s.
";

// Chinese labels are two columns wide per character: "失败原因：" is 10 columns, "指标" 4,
// "ttft_ms，冷连接" 15.
const EXPECTED_ZH: &str = "\
TTFT Meter 测量结果
端点：    https://api.openai.com/v1/chat/completions
模型：    gpt-4o-mini
协议：    OpenAI Chat Completions
运行：    6 次（成功 4，失败 1，预热 1 次不计入统计）
连接：    冷 1 次（新连接），热 3 次（复用），未知 0 次
失败原因：key_refused ×1

指标                 n       p50       p95       p99       min       max      mean
ttft_ms              4     275.0     895.0     979.0     200.0    1000.0     437.5
ttft_ms，冷连接      1    1000.0    1000.0    1000.0    1000.0    1000.0    1000.0
ttft_ms，热连接      3     250.0     295.0     299.0     200.0     300.0     250.0
ttfa_ms              4     275.0     895.0     979.0     200.0    1000.0     437.5
perceived_ttfa_ms    4     296.0     916.0    1000.0     221.0    1021.0     458.5
itl_ms               4      20.0      20.0      20.0      20.0      20.0      20.0
e2e_ms               4     336.0     956.0    1040.0     261.0    1061.0     498.5
output_tps           4      66.7      66.7      66.7      66.7      66.7      66.7

统计基于 4 次成功的运行，不含预热运行。
百分位数：最近秩之间线性插值（Hyndman-Fan 第 7 型，即 numpy 默认方法，与 AIPerf 相同）。
时间单位为毫秒，从发出请求起算（perceived 从点击起算）；output_tps 单位为 token/秒。
";

#[test]
fn summary_in_both_languages_matches_the_hand_written_text() {
    let runs = fixture::six_runs();
    let cases = [(Lang::En, EXPECTED_EN), (Lang::Zh, EXPECTED_ZH)];
    for (lang, expected) in cases {
        assert_eq!(summary_text(&runs, lang).unwrap(), expected, "{lang:?}");
    }
}

#[test]
fn given_statistics_are_used_as_given() {
    let runs = fixture::six_runs();
    let metrics: Vec<_> = runs[2..4].iter().map(|run| run.metrics.clone()).collect();
    let stats = RunsSummary::from_runs(&metrics).unwrap();
    let text = summary_text_with(&runs, &stats, Lang::En);
    // Runs 3 and 4: TTFT 200 and 300.
    assert!(text.contains(
        "\nttft_ms              2     250.0     295.0     299.0     200.0     300.0     250.0\n"
    ));
    assert!(text.contains("\nStatistics over 2 runs.\n"));
    assert!(!text.contains("cold\n"));
}

#[test]
fn several_endpoints_are_listed_and_missing_metrics_shown_as_dashes() {
    let first = fixture::record_from_timeline(
        1,
        "2026-11-29T16:00:00.000Z",
        fixture::settings("model-a"),
        Transport::Worker,
        &fixture::refused(1000.0),
    );
    let mut second = first.clone();
    second.settings.model = "model-b".to_owned();
    let text = summary_text(&[first, second], Lang::En).unwrap();
    let expected_start = "\
TTFT Meter results
Endpoints (2):
               - https://api.openai.com/v1/chat/completions | model-a | OpenAI Chat Completions
               - https://api.openai.com/v1/chat/completions | model-b | OpenAI Chat Completions
Runs:          2 (0 ok, 2 failed, 0 warm-up not in statistics)
Connections:   0 cold (new connection), 0 warm (reused), 0 unknown
Failures:      http_error ×2

metric               n       p50       p95       p99       min       max      mean
ttft_ms              0         -         -         -         -         -         -
";
    assert!(text.starts_with(expected_start), "{text}");
}

#[test]
fn no_runs_gives_a_summary_that_says_so() {
    let text = summary_text(&[], Lang::En).unwrap();
    assert!(text.starts_with("TTFT Meter results\nEndpoint:    (no runs)\nRuns:        0 (0 ok"));
}
