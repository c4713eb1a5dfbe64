//! The experiment registry: every entry declares what the panel needs, configures from its
//! defaults, schedules its runs, and reports through the display-neutral model. The
//! ground-truth tests run the registry's sessions against the copy of ttft-sim's timing
//! (as e2e/experiments.test.mjs runs the page against ttft-sim) and expect the same
//! numbers the end-to-end tests assert.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

// The run records of ttft-core's export tests.
#[path = "../../core/tests/export_fixture/mod.rs"]
mod fixture;

use std::collections::HashSet;

use sim_model::{has_cjk, sim_count, SimCache, SIM_LINEAR_PREFILL};
use ttft_core::lang::Lang;
use ttft_lab::experiment::params::{Inputs, ParamKind};
use ttft_lab::experiment::report::{ChartKind, FigureValue, Report};
use ttft_lab::experiment::schedule::{Observed, RunRole, RunSpec, Schedule, ScheduleKind};
use ttft_lab::experiment::sizing::{CountSource, TokenCount};
use ttft_lab::experiment::timed::{Due, MonitorSchedule};
use ttft_lab::experiment::{
    find, ExperimentSession, Planning, RunSample, Setup, SetupError, REGISTRY,
};

const NETWORK_MS: f64 = 40.0;

fn setup() -> Setup {
    Setup::new(Lang::En, 21, "sim-fast", "Say hi.")
}

/// Configures `code` from `inputs`, answering no count (the estimate), and returns the
/// session.
fn session(code: &str, inputs: &Inputs) -> Box<dyn ExperimentSession> {
    let mut planning = find(code).unwrap().configure(inputs, &setup()).unwrap();
    estimate(&mut planning);
    planning.finish().unwrap()
}

/// Answers every count query with "cannot count".
fn estimate(planning: &mut Planning) {
    while !planning.needs_counts().is_empty() {
        let answers = vec![None; planning.needs_counts().len()];
        planning.with_counts(&answers);
    }
}

fn runs_of(schedule: &Schedule) -> Vec<RunSpec> {
    match schedule {
        Schedule::Sequence { runs } | Schedule::Lanes { runs, .. } => runs.clone(),
        Schedule::Waves { waves } => waves.iter().flatten().cloned().collect(),
        Schedule::Timed { timing, runs } => (0..timing.run_count()).map(|i| runs.run(i)).collect(),
    }
}

fn number(report: &Report, key: &str) -> f64 {
    match report.figure(key) {
        Some(FigureValue::Number(value)) => *value,
        other => panic!("{key}: {other:?}"),
    }
}

fn observed(run: &RunSpec, sample: RunSample) -> Observed {
    Observed {
        run_index: run.run_index,
        started_ms: run.run_index as f64 * 1_000.0,
        sample,
    }
}

#[test]
fn registry_lists_the_eight_experiments_in_the_panels_order() {
    // A new experiment is appended (its file plus one registry line): the first eight keep
    // their order, and every code is unique.
    let codes: Vec<&str> = REGISTRY.iter().map(|e| e.code()).collect();
    assert_eq!(codes.iter().collect::<HashSet<_>>().len(), codes.len());
    assert_eq!(
        codes[..8],
        [
            "prompt_length",
            "max_tokens",
            "models",
            "concurrency",
            "prefix_cache",
            "tails",
            "reasoning",
            "monitor"
        ]
    );
    assert!(find("nope").is_none());
    for code in codes {
        assert_eq!(find(code).map(|e| e.code()), Some(code));
    }
    let kinds: Vec<ScheduleKind> = REGISTRY.iter().map(|e| e.schedule_kind()).collect();
    assert_eq!(kinds[3], ScheduleKind::Waves);
    assert_eq!(kinds[5], ScheduleKind::Lanes);
    assert_eq!(kinds[7], ScheduleKind::Timed);
}

#[test]
fn every_experiment_declares_labels_fields_and_defaults() {
    // The panel's field ids (test ids are `exp-<id>`; e2e/experiments.test.mjs fills them).
    let known_ids: HashSet<&str> = [
        "sizes",
        "repetitions",
        "prompt-tokens",
        "max-tokens",
        "models",
        "levels",
        "in-flight",
        "question",
        "interval",
        "duration",
        "threshold",
        "window",
    ]
    .into_iter()
    .collect();
    for (index, experiment) in REGISTRY.iter().enumerate() {
        let code = experiment.code();
        for text in [experiment.label(), experiment.description()] {
            assert!(
                !text.en.is_empty() && !has_cjk(&text.en),
                "{code}: {text:?}"
            );
            assert!(!text.zh.is_empty(), "{code}");
        }
        assert!(has_cjk(&experiment.description().zh), "{code}");
        let params = experiment.params();
        let ids: HashSet<&str> = params.iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), params.len(), "{code}: unique ids");
        assert!(
            ids.iter()
                .all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c == '-')),
            "{code}: ids become test ids: {ids:?}"
        );
        if index < 8 {
            assert!(ids.is_subset(&known_ids), "{code}: {ids:?}");
        }
        for param in &params {
            assert!(
                has_cjk(&param.label.zh) || param.label.zh == param.label.en,
                "{code}"
            );
            assert!(param.max_chars > 0);
            if matches!(param.kind, ParamKind::Count | ParamKind::CountList) {
                assert!(!param.default_text.is_empty(), "{code}: {}", param.id);
            }
        }
        // Typing every default gives the same plan as typing nothing.
        let typed = params.iter().fold(Inputs::new(), |inputs, param| {
            inputs.with(param.id, param.default_text.clone())
        });
        let from_defaults = runs_of(&session(code, &Inputs::new()).schedule());
        let from_typed = runs_of(&session(code, &typed).schedule());
        assert_eq!(from_defaults, from_typed, "{code}");
        assert!(!from_defaults.is_empty(), "{code}");
        for (index, run) in from_defaults.iter().enumerate() {
            assert_eq!(run.run_index, index, "{code}: run indexes in order");
            assert_eq!(
                u64::from(run.prompt_tokens.estimated),
                sim_count(&run.prompt)
            );
            assert!(!run.level.en.is_empty() && !run.level.zh.is_empty());
        }
    }
}

#[test]
fn field_errors_quote_the_input_in_both_languages() {
    let error = find("prompt_length")
        .unwrap()
        .configure(&Inputs::new().with("sizes", "100, 1e3"), &setup())
        .unwrap_err();
    let SetupError::Param(param) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(param.id, "sizes");
    assert_eq!(
        error.message(Lang::En),
        "Prompt sizes (tokens): \"1e3\" is not a whole number (write 400, 5000 or 5k)"
    );
    assert_eq!(
        error.message(Lang::Zh),
        "提示长度（token）：“1e3”不是整数（可写作 400、5000 或 5k）"
    );
    let error = find("concurrency")
        .unwrap()
        .configure(&Inputs::new().with("levels", "1, 65"), &setup())
        .unwrap_err();
    assert_eq!(
        error.message(Lang::En),
        "Concurrency levels: \"65\" is not a whole number from 1 to 64"
    );
    // Models: none typed and none in the form.
    let error = find("models")
        .unwrap()
        .configure(&Inputs::new(), &Setup::new(Lang::En, 1, " ", ""))
        .unwrap_err();
    assert_eq!(
        error.message(Lang::En),
        "Models (comma-separated): give a value"
    );
    let error = find("reasoning")
        .unwrap()
        .configure(&Inputs::new().with("question", "x".repeat(4_001)), &setup())
        .unwrap_err();
    assert_eq!(
        error.message(Lang::En),
        "Question: 4001 characters given; at most 4000 are accepted"
    );
}

#[test]
fn schedules_have_their_shapes() {
    // Concurrency: waves of the level's size, levels interleaved.
    let concurrency = session("concurrency", &Inputs::new().with("levels", "1, 4"));
    let Schedule::Waves { waves } = concurrency.schedule() else {
        panic!()
    };
    let sizes: Vec<usize> = waves.iter().map(Vec::len).collect();
    assert_eq!(sizes.len(), 6);
    assert_eq!(sizes.iter().filter(|&&s| s == 4).count(), 3);
    assert_eq!(sizes.iter().filter(|&&s| s == 1).count(), 3);
    // Tails: lanes.
    let tails = session("tails", &Inputs::new().with("in-flight", "3"));
    let Schedule::Lanes { in_flight, runs } = tails.schedule() else {
        panic!()
    };
    assert_eq!((in_flight, runs.len()), (3, 90));
    // Reasoning asks for reasoning on every run; no other experiment does.
    for experiment in REGISTRY {
        let runs = runs_of(&session(experiment.code(), &Inputs::new()).schedule());
        let asks = experiment.code() == "reasoning";
        assert!(
            runs.iter().all(|r| r.ask_reasoning == asks),
            "{}",
            experiment.code()
        );
    }
    // Models: the form's model when none is typed.
    let models = session("models", &Inputs::new());
    assert!(runs_of(&models.schedule())
        .iter()
        .all(|r| r.model.as_deref() == Some("sim-fast")));
    // Prefix cache: priming runs carry their role.
    let cache = runs_of(&session("prefix_cache", &Inputs::new()).schedule());
    assert_eq!(
        cache.iter().filter(|r| r.role == RunRole::Priming).count(),
        5
    );
    assert_eq!(cache.len(), 20);
    // Monitor: a timed schedule of the form's prompt after a fresh nonce.
    let monitor = session(
        "monitor",
        &Inputs::new().with("interval", "2").with("duration", "9"),
    );
    let Schedule::Timed { timing, runs } = monitor.schedule() else {
        panic!()
    };
    assert_eq!(timing.run_count(), 5);
    let first = runs.run(0);
    assert!(first.prompt.ends_with("\n\nSay hi."));
    assert_ne!(first.nonce, runs.run(1).nonce);
}

#[test]
fn timed_schedule_skips_what_a_long_run_overran() {
    let schedule = MonitorSchedule {
        interval_s: 1.0,
        duration_s: 5.0,
    };
    let table: &[(f64, usize, Due)] = &[
        (
            0.0,
            0,
            Due::Run {
                index: 0,
                skipped: 0,
            },
        ),
        (120.0, 1, Due::Wait { delay_ms: 880.0 }),
        (
            1_000.0,
            1,
            Due::Run {
                index: 1,
                skipped: 0,
            },
        ),
        // Woken late by 900 ms: still instant 1.
        (
            1_900.0,
            1,
            Due::Run {
                index: 1,
                skipped: 0,
            },
        ),
        // A run that took 2.5 s: instants 2 and 3 are skipped, 4 runs (late by 0.5 s).
        (
            4_500.0,
            2,
            Due::Run {
                index: 4,
                skipped: 2,
            },
        ),
        // Late for the last instant by up to an interval: it still runs.
        (
            5_000.0,
            4,
            Due::Run {
                index: 4,
                skipped: 0,
            },
        ),
        // Later: over, one instant missed.
        (5_000.5, 4, Due::Over { skipped: 1 }),
        (0.0, 5, Due::Over { skipped: 0 }),
        (f64::NAN, 0, Due::Over { skipped: 5 }),
    ];
    for (elapsed_ms, next_index, expected) in table {
        assert_eq!(
            schedule.due(*elapsed_ms, *next_index),
            *expected,
            "{elapsed_ms} ms, next {next_index}"
        );
    }
}

#[test]
fn sizing_against_the_sim_itself_changes_no_prompt() {
    // ttft-sim's tokenizer is the filler's rule: calibration finds 1.0 and every size exact.
    let experiment = find("prompt_length").unwrap();
    let mut planning = experiment.configure(&Inputs::new(), &setup()).unwrap();
    let mut requests = 0;
    while !planning.needs_counts().is_empty() {
        let answers: Vec<Option<TokenCount>> = planning
            .needs_counts()
            .iter()
            .map(|q| {
                Some(TokenCount {
                    tokens: sim_count(&q.text) as u32,
                    source: CountSource::ServerTokenizer,
                })
            })
            .collect();
        requests += answers.len();
        planning.with_counts(&answers);
    }
    // One probe and one verification per size: each lands exactly.
    assert_eq!(requests, 1 + 4);
    let sized = runs_of(&planning.finish().unwrap().schedule());
    let estimated = runs_of(&session("prompt_length", &Inputs::new()).schedule());
    let prompts = |runs: &[RunSpec]| runs.iter().map(|r| r.prompt.clone()).collect::<Vec<_>>();
    assert_eq!(prompts(&sized), prompts(&estimated));
}

#[test]
fn prompt_length_on_the_linear_sim_reports_its_slope() {
    // As the e2e test: sim-linear-prefill, 200 ms + 0.5 ms per token.
    let inputs = Inputs::new()
        .with("sizes", "100, 1000, 2000, 4000")
        .with("repetitions", "2");
    let mut session = session("prompt_length", &inputs);
    let runs = runs_of(&session.schedule());
    assert_eq!(runs.len(), 8);
    let empty = session.report();
    assert_eq!(empty.first_verdict_code(), "not_enough_data");
    for run in &runs {
        let tokens = sim_count(&run.prompt);
        let ttft_ms = NETWORK_MS + SIM_LINEAR_PREFILL.prefill_ms(tokens, None);
        session.record(observed(
            run,
            RunSample {
                prompt_tokens: Some(tokens),
                ..RunSample::with_ttft(ttft_ms)
            },
        ));
    }
    let report = session.report();
    assert!((number(&report, "slope-ms-per-token") - 0.5).abs() < 1e-9);
    assert!((number(&report, "intercept-ms") - 240.0).abs() < 1e-6);
    assert_eq!(report.first_verdict_code(), "near_linear");
    assert_eq!(report.table.rows.len(), 4);
    assert_eq!(
        report.figure("token-source"),
        Some(&FigureValue::Word("server_usage".into()))
    );
    let chart = report.chart.as_ref().unwrap();
    assert_eq!(chart.kind, ChartKind::Scatter);
    assert_eq!(chart.series[0].points.len(), 8);
    assert_eq!(chart.fits.len(), 2);
    assert_eq!(chart.x.label.en, "prompt tokens (server usage)");
    assert!(report.notes[0]
        .en
        .starts_with("Prefill cost: 500.0 ms per 1,000 prompt tokens."));
    assert_eq!(report.tally.measured, 8);
    assert_eq!(report.tally.calibration_requests, 0);
}

#[test]
fn prefix_cache_on_the_sim_reports_its_cached_tokens() {
    // As the e2e test: 1000 tokens = 15 whole 64-token blocks = 960 cached; warm prefill
    // 200 + 0.5·40 = 220 ms against 700 ms cold.
    let inputs = Inputs::new()
        .with("prompt-tokens", "1000")
        .with("repetitions", "3");
    let mut session = session("prefix_cache", &inputs);
    let mut cache = SimCache::default();
    for run in runs_of(&session.schedule()) {
        let tokens = sim_count(&run.prompt);
        let cached = cache.lookup_and_insert(&run.prompt);
        let ttft_ms = NETWORK_MS + SIM_LINEAR_PREFILL.prefill_ms(tokens - cached, None);
        session.record(observed(
            &run,
            RunSample {
                prompt_tokens: Some(tokens),
                cached_prompt_tokens: Some(cached),
                ..RunSample::with_ttft(ttft_ms)
            },
        ));
    }
    let report = session.report();
    assert_eq!(number(&report, "warm-cached-tokens"), 960.0);
    assert_eq!(number(&report, "cold-cached-tokens"), 0.0);
    assert!((number(&report, "cold-p50-ms") - 740.0).abs() < 1e-9);
    assert!((number(&report, "warm-p50-ms") - 260.0).abs() < 1e-9);
    assert_eq!(
        report.verdict_codes(),
        vec!["cache_works", "first_token_changed_misses"]
    );
    assert_eq!(
        report.figure("hit-evidence"),
        Some(&FigureValue::Word("usage".into()))
    );
    assert_eq!(report.tally.priming, 3);
    assert!(report
        .notes
        .iter()
        .any(|n| n.en.contains("right after a priming run")));
    let chart = report.chart.as_ref().unwrap();
    assert_eq!(chart.kind, ChartKind::Sequence);
    let lengths: Vec<usize> = chart.series.iter().map(|s| s.values.len()).collect();
    assert_eq!(lengths, vec![3, 3, 3], "priming runs are not in the chart");
}

#[test]
fn monitor_reports_rolling_percentiles_and_its_threshold() {
    let mut session = session("monitor", &Inputs::new().with("threshold", "2000"));
    let Schedule::Timed { runs, .. } = session.schedule() else {
        panic!()
    };
    for (index, ttft_ms) in [(0, 210.0), (1, 190.0), (2, 200.0)] {
        session.record(Observed {
            run_index: index,
            started_ms: index as f64 * 10_000.0,
            sample: RunSample::with_ttft(ttft_ms),
        });
        let _ = runs.run(index);
    }
    let report = session.report();
    assert_eq!(report.first_verdict_code(), "healthy");
    assert_eq!(number(&report, "runs"), 3.0);
    assert_eq!(report.figure("breached"), Some(&FigureValue::Flag(false)));
    assert_eq!(report.table.rows.len(), 3);
    let chart = report.chart.as_ref().unwrap();
    assert_eq!(chart.references[0].value, 2_000.0);
    assert_eq!(chart.references[0].name.en, "p95 limit");
    assert_eq!(report.tally.planned, 30);
}

#[test]
fn every_report_is_consistent_and_bilingual() {
    for experiment in REGISTRY {
        let code = experiment.code();
        let mut session = session(code, &Inputs::new());
        let runs = runs_of(&session.schedule());
        for run in runs.iter().take(40) {
            let tokens = sim_count(&run.prompt);
            let ttft_ms = 100.0 + 0.2 * tokens as f64 + (run.run_index % 7) as f64;
            session.record(observed(
                run,
                RunSample {
                    prompt_tokens: Some(tokens),
                    cached_prompt_tokens: Some(0),
                    reasoning_ms: Some(50.0),
                    ttfa_ms: Some(ttft_ms + 50.0),
                    ..RunSample::with_ttft(ttft_ms)
                },
            ));
        }
        // An unknown run index is ignored.
        session.record(Observed {
            run_index: 1_000_000,
            started_ms: 0.0,
            sample: RunSample::failed(),
        });
        let report = session.report();
        assert_eq!(report.experiment, code);
        assert!(!report.verdicts.is_empty(), "{code}");
        for verdict in &report.verdicts {
            assert!(
                !has_cjk(&verdict.text.en) && has_cjk(&verdict.text.zh),
                "{code}"
            );
            assert!(!verdict.code.is_empty());
        }
        for note in &report.notes {
            assert!(!has_cjk(&note.en) && has_cjk(&note.zh), "{code}: {note:?}");
        }
        let columns = report.table.columns.len();
        assert!(columns > 0, "{code}");
        for row in &report.table.rows {
            assert_eq!(row.len(), columns, "{code}");
            for cell in row {
                assert!(!cell.display(Lang::En).contains("NaN"), "{code}");
            }
        }
        let chart = report.chart.as_ref().unwrap();
        assert!(!chart.series.is_empty(), "{code}");
        assert_eq!(
            report.tally.measured,
            runs.len().min(40),
            "{code}: the unknown run was not recorded"
        );
        // The report reads back from JSON (outcomes are stored and exported); numbers may
        // differ in the last bit of their decimal round trip.
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back.verdicts, report.verdicts, "{code}");
        assert_eq!(back.notes, report.notes, "{code}");
        assert_eq!(back.table.columns, report.table.columns, "{code}");
        assert_eq!(back.table.rows.len(), report.table.rows.len(), "{code}");
        assert_eq!(back.figures.len(), report.figures.len(), "{code}");
    }
}

#[test]
fn runs_are_tagged_and_read_back_from_the_one_run_record() {
    use ttft_core::record::{ExperimentTag, Transport};
    let cache = runs_of(&session("prefix_cache", &Inputs::new()).schedule());
    let priming = cache.iter().find(|r| r.role == RunRole::Priming).unwrap();
    assert!(priming.warm_up());
    assert_eq!(
        priming.experiment_tag("prefix_cache", 2),
        ExperimentTag {
            kind: "prefix_cache".into(),
            session: 2,
            arm: "warm (priming)".into()
        }
    );
    let cold = cache.iter().find(|r| r.level.en == "cold").unwrap();
    assert!(!cold.warm_up());
    // A completed run with usage (reasoning 400 ms, answer 900 ms, 12 prompt tokens of
    // which 8 cached) and a refused one.
    let record = fixture::record_from_timeline(
        1,
        "2026-11-29T16:00:00.000Z",
        fixture::settings("m"),
        Transport::Worker,
        &fixture::reasoning(1_000.0),
    );
    let sample = RunSample::from_record(&record);
    assert!(sample.succeeded);
    assert_eq!(sample.ttft_ms, Some(400.0));
    assert_eq!(sample.ttfa_ms, Some(900.0));
    assert_eq!(sample.reasoning_ms, Some(500.0));
    assert_eq!(
        (sample.prompt_tokens, sample.cached_prompt_tokens),
        (Some(12), Some(8))
    );
    let refused = fixture::record_from_timeline(
        2,
        "2026-11-29T16:00:01.000Z",
        fixture::settings("m"),
        Transport::Worker,
        &fixture::refused(2_000.0),
    );
    let sample = RunSample::from_record(&refused);
    assert!(!sample.succeeded);
    assert_eq!(sample.usable_ttft_ms(), None);
}
