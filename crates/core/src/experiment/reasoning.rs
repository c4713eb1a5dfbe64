//! Experiment 7: reasoning. How much of the wait for the answer is thinking?
//!
//! A reasoning model first streams (or hides) its thinking; the first *answer* token comes
//! `reasoning_ms` after the first reasoning token. When the product does not show the
//! thinking, users wait the whole `ttfa_ms` with nothing on screen (DESIGN.md §1).

use serde::{Deserialize, Serialize};

use super::{bilingual, ms, percent, run_nonce, summary_of};
use super::{Observation, PlannedRun};
use crate::lang::Lang;
use crate::request::with_nonce;
use crate::stats::Summary;

use super::filler::sim_token_count;

/// Default runs.
pub const DEFAULT_REPETITIONS: usize = 5;

/// Thinking is said to dominate the wait when the median share of the answer wait spent
/// thinking (`reasoning_ms / ttfa_ms`) is at least one half: then showing the thinking
/// or lowering the effort moves the first visible text more than any network fix.
pub const THINKING_DOMINANT_SHARE: f64 = 0.5;

/// Default question (English): needs a little reasoning, answers in a line.
pub const DEFAULT_QUESTION_EN: &str =
    "A train leaves at 9:40 and arrives at 13:15. How long is the trip? Answer in one line.";

/// Default question (Chinese).
pub const DEFAULT_QUESTION_ZH: &str =
    "火车九点四十分出发，十三点十五分到达。路上用了多长时间？请用一句话回答。";

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasoningConfig {
    /// The question asked every run (after a nonce at position 0).
    pub question: String,
    /// Runs.
    pub repetitions: usize,
    /// Seed of the nonces.
    pub seed: u64,
    /// Output limit (reasoning tokens count against it on most providers: leave room).
    pub max_tokens: Option<u32>,
}

impl ReasoningConfig {
    /// The defaults with the question in `lang`.
    pub fn new(lang: Lang) -> ReasoningConfig {
        let question = match lang {
            Lang::En => DEFAULT_QUESTION_EN,
            Lang::Zh => DEFAULT_QUESTION_ZH,
        };
        ReasoningConfig {
            question: question.to_owned(),
            repetitions: DEFAULT_REPETITIONS,
            seed: 0,
            max_tokens: Some(4_096),
        }
    }
}

/// The plan: the question `repetitions` times, each with its own nonce. The key is the
/// repetition number.
pub fn plan(config: &ReasoningConfig) -> Vec<PlannedRun<usize>> {
    (0..config.repetitions)
        .map(|run_index| {
            let nonce = run_nonce(config.seed, run_index);
            let prompt = with_nonce(Some(&nonce), &config.question);
            PlannedRun {
                run_index,
                key: run_index,
                repetition: run_index,
                sim_prompt_tokens: sim_token_count(&prompt),
                nonce: Some(nonce),
                prompt,
                model: None,
                max_tokens: config.max_tokens,
            }
        })
        .collect()
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasoningResult {
    /// Successful runs with a first answer.
    pub runs: usize,
    /// Of those, runs that streamed reasoning before the answer.
    pub runs_with_reasoning: usize,
    /// Time to the first token of any kind (the first reasoning token when there is one), ms.
    pub ttft_ms: Option<Summary>,
    /// Time to the first answer token, ms.
    pub ttfa_ms: Option<Summary>,
    /// Thinking time before the answer, ms.
    pub reasoning_ms: Option<Summary>,
    /// Per run `reasoning_ms / ttfa_ms`: the share of the answer wait spent thinking.
    pub thinking_share: Option<Summary>,
    /// The conclusion.
    pub verdict: ReasoningVerdict,
}

/// The conclusion of the reasoning experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReasoningVerdict {
    /// No successful run reached an answer.
    NotEnoughData,
    /// No run streamed reasoning text.
    NoVisibleReasoning {
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
    /// Users wait mostly for thinking.
    MostlyThinking {
        /// Median share of the answer wait spent thinking.
        median_share: f64,
        /// Median thinking time, ms.
        median_reasoning_ms: f64,
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
    /// Thinking is a minor part of the wait.
    ThinkingMinor {
        /// Median share of the answer wait spent thinking.
        median_share: f64,
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
}

impl ReasoningVerdict {
    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ReasoningVerdict::NotEnoughData => bilingual(
                lang,
                "No run reached an answer: fix the errors first, and leave max_tokens room for \
                 the thinking (it counts against the limit)."
                    .into(),
                "没有任何运行得到回答：请先解决错误，并给 max_tokens 留出思考的余量（思考也计入上限）。"
                    .into(),
            ),
            ReasoningVerdict::NoVisibleReasoning { median_ttfa_ms } => {
                let ttfa = ms(*median_ttfa_ms);
                bilingual(
                    lang,
                    format!(
                        "No reasoning text was streamed; the first answer token came after a \
                         median of {ttfa} ms. If the model thinks without showing it, that whole \
                         wait is blank for the user: ask the provider for reasoning summaries or \
                         lower the reasoning effort."
                    ),
                    format!(
                        "没有流式输出思考内容；第一个回答字的中位等待是 {ttfa} 毫秒。如果模型在后台思考而不显示，\
                         用户在这段时间里什么也看不到：请向服务商开启思考摘要，或降低推理强度。"
                    ),
                )
            }
            ReasoningVerdict::MostlyThinking {
                median_share,
                median_reasoning_ms,
                median_ttfa_ms,
            } => {
                let (share, thinking, ttfa) = (
                    percent(*median_share),
                    ms(*median_reasoning_ms),
                    ms(*median_ttfa_ms),
                );
                bilingual(
                    lang,
                    format!(
                        "Users wait mostly for thinking: {share} of the {ttfa} ms before the first \
                         answer token is reasoning ({thinking} ms). Stream and show the reasoning \
                         (or a progress indicator) so the screen is not blank, or lower the \
                         reasoning effort or thinking budget."
                    ),
                    format!(
                        "用户主要在等模型思考：第一个回答字之前的 {ttfa} 毫秒里有 {share} 是思考（{thinking} 毫秒）。\
                         请流式显示思考过程（或进度提示）以免屏幕空白，或降低推理强度、思考预算。"
                    ),
                )
            }
            ReasoningVerdict::ThinkingMinor {
                median_share,
                median_ttfa_ms,
            } => {
                let (share, ttfa) = (percent(*median_share), ms(*median_ttfa_ms));
                bilingual(
                    lang,
                    format!(
                        "Thinking is a minor part of the wait: {share} of the {ttfa} ms before the \
                         first answer token. Look at prefill, network and queueing first."
                    ),
                    format!(
                        "思考只占等待的一小部分：第一个回答字之前的 {ttfa} 毫秒里只有 {share}。\
                         请先查看预填充、网络和排队。"
                    ),
                )
            }
        }
    }
}

/// Analyses the runs (see [`THINKING_DOMINANT_SHARE`] for the rule).
pub fn analyze<K>(observations: &[Observation<K>]) -> ReasoningResult {
    let answered: Vec<&Observation<K>> = observations
        .iter()
        .filter(|o| o.sample.usable_ttfa_ms().is_some())
        .collect();
    let collect = |value: &dyn Fn(&Observation<K>) -> Option<f64>| -> Vec<f64> {
        answered.iter().filter_map(|o| value(o)).collect()
    };
    let ttfts = collect(&|o| o.sample.usable_ttft_ms());
    let ttfas = collect(&|o| o.sample.usable_ttfa_ms());
    let reasonings = collect(&|o| o.sample.reasoning_ms.filter(|r| r.is_finite()));
    let shares = collect(&|o| {
        let ttfa_ms = o.sample.usable_ttfa_ms()?;
        let reasoning_ms = o.sample.reasoning_ms.filter(|r| r.is_finite())?;
        (ttfa_ms > 0.0).then(|| reasoning_ms / ttfa_ms)
    });
    let ttfa_ms = summary_of(&ttfas);
    let reasoning_ms = summary_of(&reasonings);
    let thinking_share = summary_of(&shares);
    let verdict = match (&ttfa_ms, &reasoning_ms, &thinking_share) {
        (None, _, _) => ReasoningVerdict::NotEnoughData,
        (Some(ttfa), Some(reasoning), Some(share)) if share.p50 >= THINKING_DOMINANT_SHARE => {
            ReasoningVerdict::MostlyThinking {
                median_share: share.p50,
                median_reasoning_ms: reasoning.p50,
                median_ttfa_ms: ttfa.p50,
            }
        }
        (Some(ttfa), _, Some(share)) => ReasoningVerdict::ThinkingMinor {
            median_share: share.p50,
            median_ttfa_ms: ttfa.p50,
        },
        (Some(ttfa), _, None) => ReasoningVerdict::NoVisibleReasoning {
            median_ttfa_ms: ttfa.p50,
        },
    };
    ReasoningResult {
        runs: answered.len(),
        runs_with_reasoning: reasonings.len(),
        ttft_ms: summary_of(&ttfts),
        ttfa_ms,
        reasoning_ms,
        thinking_share,
        verdict,
    }
}
