//! The plain-text summary, to paste into an issue or a chat: what was measured, how many
//! runs succeeded, and the usual statistics in aligned columns, in English or Chinese.

use crate::lang::Lang;
use crate::record::RunRecord;
use crate::stats::{StatsError, Summary};
use crate::texts as t;
use crate::timeline::{RunMetrics, RunsSummary};

/// Columns a character takes in a monospace font: 2 for East Asian wide characters.
fn char_width(character: char) -> usize {
    let code = u32::from(character);
    let wide = matches!(code,
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6);
    if wide {
        2
    } else {
        1
    }
}

/// Display width of a string in a monospace font.
fn display_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// `text` padded with spaces on the right to `width` columns.
fn pad_right(text: &str, width: usize) -> String {
    let padding = width.saturating_sub(display_width(text));
    format!("{text}{}", " ".repeat(padding))
}

/// `text` padded with spaces on the left to `width` columns.
fn pad_left(text: &str, width: usize) -> String {
    let padding = width.saturating_sub(display_width(text));
    format!("{}{text}", " ".repeat(padding))
}

/// Width of each number column.
const NUMBER_WIDTH: usize = 10;

/// One row of the statistics table.
struct StatRow {
    label: String,
    summary: Option<Summary>,
}

/// The table: a header, then one line per metric, columns aligned.
fn table(rows: &[StatRow], lang: Lang) -> String {
    let metric_header = t::SUMMARY_METRIC_HEADER.get(lang);
    let label_width = rows
        .iter()
        .map(|row| display_width(&row.label))
        .chain([display_width(metric_header)])
        .max()
        .unwrap_or(0);
    let headers = ["n", "p50", "p95", "p99", "min", "max", "mean"];
    let mut text = pad_right(metric_header, label_width);
    text.push_str(&pad_left(headers[0], 5));
    for header in &headers[1..] {
        text.push_str(&pad_left(header, NUMBER_WIDTH));
    }
    let mut lines = vec![text.trim_end().to_owned()];
    for row in rows {
        let mut line = pad_right(&row.label, label_width);
        let count = row.summary.as_ref().map_or(0, |s| s.count);
        line.push_str(&pad_left(&count.to_string(), 5));
        let values = row
            .summary
            .as_ref()
            .map(|s| [s.p50, s.p95, s.p99, s.min, s.max, s.mean]);
        for index in 0..6 {
            let cell = values.map_or_else(|| "-".to_owned(), |v| format!("{:.1}", v[index]));
            line.push_str(&pad_left(&cell, NUMBER_WIDTH));
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// The distinct (protocol, URL, model) combinations, in order of first appearance.
fn endpoints(runs: &[RunRecord]) -> Vec<(String, String, String)> {
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for run in runs.iter().map(RunRecord::redacted) {
        let settings = run.settings;
        let endpoint = (
            settings.endpoint_url,
            settings.model,
            settings.protocol.label().to_owned(),
        );
        if !seen.contains(&endpoint) {
            seen.push(endpoint);
        }
    }
    seen
}

/// A labelled line of the header block: (label, value).
type Field = (String, String);

/// The endpoint fields: protocol, URL and model for a single endpoint, a list for several.
fn endpoint_fields(runs: &[RunRecord], lang: Lang) -> Vec<Field> {
    let found = endpoints(runs);
    match found.as_slice() {
        [] => vec![(
            t::SUMMARY_ENDPOINT.get(lang).to_owned(),
            t::SUMMARY_NO_RUNS.get(lang).to_owned(),
        )],
        [(url, model, protocol)] => vec![
            (t::SUMMARY_ENDPOINT.get(lang).to_owned(), url.clone()),
            (t::SUMMARY_MODEL.get(lang).to_owned(), model.clone()),
            (t::SUMMARY_PROTOCOL.get(lang).to_owned(), protocol.clone()),
        ],
        several => {
            let heading = t::SUMMARY_ENDPOINTS.fill(lang, &[("count", &several.len())]);
            let mut fields = vec![(heading, String::new())];
            fields.extend(several.iter().map(|(url, model, protocol)| {
                (String::new(), format!("- {url} | {model} | {protocol}"))
            }));
            fields
        }
    }
}

/// Counts of runs, as the summary reports them.
struct Counts {
    total: usize,
    ok: usize,
    failed: usize,
    warm_up: usize,
}

fn counts(runs: &[RunRecord]) -> Counts {
    let measured = runs.iter().filter(|run| !run.warm_up);
    let ok = measured.clone().filter(|run| run.is_ok()).count();
    Counts {
        total: runs.len(),
        ok,
        failed: measured.count() - ok,
        warm_up: runs.iter().filter(|run| run.warm_up).count(),
    }
}

fn runs_field(counts: &Counts, lang: Lang) -> Field {
    let Counts {
        total,
        ok,
        failed,
        warm_up,
    } = counts;
    (
        t::SUMMARY_RUNS.get(lang).to_owned(),
        t::SUMMARY_RUNS_COUNTS.fill(
            lang,
            &[
                ("total", total),
                ("ok", ok),
                ("failed", failed),
                ("warm_up", warm_up),
            ],
        ),
    )
}

/// The runs statistics are computed over: successful and not warm-up.
fn statistics_runs(runs: &[RunRecord]) -> Vec<&RunRecord> {
    runs.iter().filter(|run| run.counts()).collect()
}

fn connections_field(runs: &[RunRecord], lang: Lang) -> Field {
    let measured = statistics_runs(runs);
    let cold = measured.iter().filter(|run| run.cold == Some(true)).count();
    let warm = measured
        .iter()
        .filter(|run| run.cold == Some(false))
        .count();
    let unknown = measured.len() - cold - warm;
    (
        t::SUMMARY_CONNECTIONS.get(lang).to_owned(),
        t::SUMMARY_CONNECTIONS_COUNTS.fill(
            lang,
            &[("cold", &cold), ("warm", &warm), ("unknown", &unknown)],
        ),
    )
}

/// `key_refused ×2, http_error ×1`: failed runs by cause (or outcome when undiagnosed).
fn failures_field(runs: &[RunRecord], lang: Lang) -> Option<Field> {
    let mut causes: Vec<(String, usize)> = Vec::new();
    for run in runs.iter().filter(|run| !run.warm_up && !run.is_ok()) {
        let cause = run
            .diagnosis_cause
            .clone()
            .unwrap_or_else(|| run.outcome.code().to_owned());
        match causes.iter_mut().find(|(known, _)| *known == cause) {
            Some((_, count)) => *count += 1,
            None => causes.push((cause, 1)),
        }
    }
    if causes.is_empty() {
        return None;
    }
    let list: Vec<String> = causes
        .iter()
        .map(|(cause, count)| format!("{cause} ×{count}"))
        .collect();
    Some((t::SUMMARY_FAILURES.get(lang).to_owned(), list.join(", ")))
}

fn metric_rows(stats: &RunsSummary) -> Vec<StatRow> {
    [
        ("ttft_ms", &stats.ttft_ms),
        ("ttfa_ms", &stats.ttfa_ms),
        ("perceived_ttfa_ms", &stats.perceived_ttfa_ms),
        ("itl_ms", &stats.itl_ms),
        ("e2e_ms", &stats.e2e_ms),
        ("output_tps", &stats.output_tps),
    ]
    .into_iter()
    .map(|(label, summary)| StatRow {
        label: label.to_owned(),
        summary: summary.clone(),
    })
    .collect()
}

fn method_lines(lang: Lang) -> Vec<String> {
    [t::SUMMARY_PERCENTILE_METHOD, t::SUMMARY_TIME_UNITS]
        .map(|text| text.get(lang).to_owned())
        .into()
}

/// The header block with values aligned after the longest label and its gap
/// ([`t::SUMMARY_LABEL_GAP`]).
fn aligned_fields(fields: &[Field], lang: Lang) -> Vec<String> {
    let gap = display_width(t::SUMMARY_LABEL_GAP.get(lang));
    let width = fields
        .iter()
        .map(|(label, _)| display_width(label))
        .max()
        .unwrap_or(0)
        + gap;
    fields
        .iter()
        .map(|(label, value)| {
            format!("{}{value}", pad_right(label, width))
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// Assembles the summary from its parts.
fn render(runs: &[RunRecord], rows: &[StatRow], coverage: String, lang: Lang) -> String {
    let mut fields = endpoint_fields(runs, lang);
    fields.push(runs_field(&counts(runs), lang));
    fields.push(connections_field(runs, lang));
    fields.extend(failures_field(runs, lang));
    let mut lines = vec![t::SUMMARY_TITLE.get(lang).to_owned()];
    lines.extend(aligned_fields(&fields, lang));
    lines.push(String::new());
    lines.push(table(rows, lang));
    lines.push(String::new());
    lines.push(coverage);
    lines.extend(method_lines(lang));
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// The TTFT summary of the statistics runs whose `cold` flag is `cold`.
fn ttft_where_cold(runs: &[&RunRecord], cold: bool) -> Result<Option<Summary>, StatsError> {
    let samples: Vec<f64> = runs
        .iter()
        .filter(|run| run.cold == Some(cold))
        .filter_map(|run| run.metrics.ttft_ms)
        .collect();
    Summary::from_samples(&samples)
}

/// The summary, with statistics computed over the successful runs that are not warm-up
/// runs, and TTFT split into cold and warm connections when both kinds are known.
/// An error only if a metric is NaN or infinite.
pub fn summary_text(runs: &[RunRecord], lang: Lang) -> Result<String, StatsError> {
    let measured = statistics_runs(runs);
    let metrics: Vec<&RunMetrics> = measured.iter().map(|run| &run.metrics).collect();
    let stats = RunsSummary::from_run_refs(&metrics)?;
    let mut rows = metric_rows(&stats);
    let cold = ttft_where_cold(&measured, true)?;
    let warm = ttft_where_cold(&measured, false)?;
    if cold.is_some() && warm.is_some() {
        rows.insert(
            1,
            StatRow {
                label: t::SUMMARY_TTFT_WARM.get(lang).to_owned(),
                summary: warm,
            },
        );
        rows.insert(
            1,
            StatRow {
                label: t::SUMMARY_TTFT_COLD.get(lang).to_owned(),
                summary: cold,
            },
        );
    }
    let coverage = t::SUMMARY_COVERAGE_SUCCESSFUL.fill(lang, &[("runs", &measured.len())]);
    Ok(render(runs, &rows, coverage, lang))
}

/// The summary with statistics the caller already computed (e.g. the app's live
/// [`RunsSummary`]); `runs` still gives the endpoint and the counts.
pub fn summary_text_with(runs: &[RunRecord], stats: &RunsSummary, lang: Lang) -> String {
    let coverage = t::SUMMARY_COVERAGE.fill(lang, &[("runs", &stats.runs)]);
    render(runs, &metric_rows(stats), coverage, lang)
}
