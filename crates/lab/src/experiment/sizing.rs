//! Prompt sizes as the server counts them, and sizes that fit its context window.
//!
//! The filler is written in ttft-sim's token units ([`estimated_tokens`]); a real
//! tokenizer counts the same text differently (the issue's case: 2.6× as many tokens).
//! Experiments that size prompts therefore ask the server, through the executor, how many
//! tokens a text has, and scale the filler until the server's count is the target:
//!
//! 1. **calibrate**: count one probe text; derive server tokens per filler token;
//! 2. **verify**: count one prompt of every planned size (with a nonce of the same shape as
//!    the measured runs'); resize the ones off by more than [`SIZE_TOLERANCE_SHARE`] and count
//!    again, at most [`MAX_VERIFY_ROUNDS`] times.
//!
//! [`PromptSizer`] is that state machine. It never does I/O: it lists the texts it needs
//! counted ([`PromptSizer::needs_counts`]); the executor answers each from the server's
//! tokenize endpoint, from the `usage.prompt_tokens` of a non-streamed `max_tokens: 1`
//! request, or not at all, and hands the answers back ([`PromptSizer::with_counts`]). The
//! result, [`PromptSizing`], says which filler size to send for each target, what the server
//! counted, and where the counts came from ([`CountSource`]). Each count the server answered
//! is one calibration request: not a measured run, and reported as such.
//!
//! Calibration texts start with their own nonces (`calibration_nonce`), never a measured
//! run's, so a server's prefix cache filled by a counting request cannot speed up a
//! measured run (caches match from position 0).
//!
//! [`fit_sizes`] refuses or clips sizes that cannot fit the context window the executor
//! learned from the server (prompt + the run's output limit + [`CHAT_TEMPLATE_MARGIN_TOKENS`]).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::filler::{estimated_tokens, sized_prompt, TokenCalibration};
use super::order::run_nonce;
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::text::Text;

/// Tokens kept free for what the server adds around the user's text (chat template: BOS,
/// role headers, the generation prompt; some templates add a default system prompt of a
/// few dozen tokens). Counts from a tokenize endpoint do not include them.
pub const CHAT_TEMPLATE_MARGIN_TOKENS: u32 = 64;

/// A size is on target when the server's count is within this share of it…
pub const SIZE_TOLERANCE_SHARE: f64 = 0.02;

/// …or within this many tokens (one filler word on any tokenizer; 2% of a 125-token
/// prompt is less than one word).
pub const SIZE_TOLERANCE_MIN_TOKENS: u32 = 4;

/// Most rounds of verification: each round scales by the last count's own ratio, which
/// lands within the tolerance in one or two rounds on every tokenizer we tried.
pub const MAX_VERIFY_ROUNDS: usize = 4;

/// Size of the probe text in filler tokens: long enough that the template's few tokens do
/// not skew the ratio (below 2% here), short enough to be a cheap request.
pub const PROBE_FILLER_TOKENS: u32 = 500;

/// XORed into the seed of calibration nonces, so they never equal a measured run's.
const CALIBRATION_SEED_SALT: u64 = 0xCA11_B8A7_E000_0001;

/// Where a token count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountSource {
    /// The server's `usage.prompt_tokens` (of the run itself, or of a counting request);
    /// it includes the chat template's tokens.
    ServerUsage,
    /// The server's tokenize endpoint (llama.cpp, vLLM `POST /tokenize`); the user's text
    /// only, without the chat template.
    ServerTokenizer,
    /// ttft-sim's rule (4 characters or one CJK ideograph per token): exact for ttft-sim,
    /// a guess for any other server.
    Estimate,
}

impl CountSource {
    /// Stable code (exports, `data-*` attributes).
    pub fn code(self) -> &'static str {
        match self {
            CountSource::ServerUsage => "server_usage",
            CountSource::ServerTokenizer => "server_tokenizer",
            CountSource::Estimate => "estimate",
        }
    }

    /// Short name.
    pub fn label(self) -> Text {
        match self {
            CountSource::ServerUsage => t::SERVER_USAGE,
            CountSource::ServerTokenizer => t::SERVER_TOKENIZER,
            CountSource::Estimate => t::ESTIMATE,
        }
    }
}

/// A token count and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCount {
    /// Tokens.
    pub tokens: u32,
    /// Where the number came from.
    pub source: CountSource,
}

/// A text whose token count the sizer needs, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountQuery {
    /// The text to count, exactly as it would be sent as the user message.
    pub text: String,
    /// The planned size it is a prompt of (None for the probe).
    pub target_tokens: Option<u32>,
}

/// The context window and what a run reserves of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextBudget {
    /// The server's context window, tokens (prompt and output together).
    pub window_tokens: u32,
    /// The run's output limit (`max_tokens`), tokens.
    pub output_tokens: u32,
}

impl ContextBudget {
    /// Largest prompt to plan: the window minus the output and the template margin.
    fn prompt_room(&self) -> u32 {
        self.window_tokens
            .saturating_sub(self.output_tokens)
            .saturating_sub(CHAT_TEMPLATE_MARGIN_TOKENS)
    }

    /// Largest prompt the server accepts with this output limit.
    fn hard_max(&self) -> u32 {
        self.window_tokens.saturating_sub(self.output_tokens)
    }
}

/// What a clip changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clipped {
    /// A prompt size (the output limit is kept).
    Prompt,
    /// An output limit, `max_tokens` (the prompt is kept).
    Output,
}

/// A planned size changed to fit the context window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clip {
    /// Which size.
    pub clipped: Clipped,
    /// The size asked for, tokens.
    pub requested_tokens: u32,
    /// The size planned instead; `None` when the size was dropped (its clipped value was
    /// already planned).
    pub used_tokens: Option<u32>,
    /// The server's context window, tokens.
    pub window_tokens: u32,
    /// What the other part keeps of the window: the output limit for a prompt clip, the
    /// prompt's tokens for an output clip.
    pub reserved_tokens: u32,
}

impl Clip {
    /// What happened and why.
    pub fn message(&self) -> Bilingual {
        let (requested, window, reserved, margin) = (
            self.requested_tokens,
            self.window_tokens,
            self.reserved_tokens,
            CHAT_TEMPLATE_MARGIN_TOKENS,
        );
        let (what, other) = match self.clipped {
            Clipped::Prompt => (t::CLIP_WHAT_PROMPT, t::CLIP_OTHER_OUTPUT),
            Clipped::Output => (t::CLIP_WHAT_OUTPUT, t::CLIP_OTHER_PROMPT),
        };
        Bilingual::from_fn(|lang| {
            let (what, other) = (what.get(lang), other.get(lang));
            match self.used_tokens {
                Some(used) => t::CLIP_NOTE_CLIPPED.fill(
                    lang,
                    &[
                        ("what", &what),
                        ("requested", &requested),
                        ("used", &used),
                        ("window", &window),
                        ("reserved", &reserved),
                        ("other", &other),
                        ("margin", &margin),
                    ],
                ),
                None => t::CLIP_NOTE_LEFT_OUT.fill(
                    lang,
                    &[
                        ("what", &what),
                        ("requested", &requested),
                        ("window", &window),
                        ("reserved", &reserved),
                        ("other", &other),
                    ],
                ),
            }
        })
    }
}

/// The experiment cannot run within the context window.
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
pub enum SizingError {
    /// Not even one token of prompt fits.
    #[error(
        "nothing fits the server's context window of {} tokens with {} kept for the output",
        budget.window_tokens,
        budget.output_tokens
    )]
    NothingFits {
        /// The budget.
        budget: ContextBudget,
    },
}

impl SizingError {
    /// What is wrong and what to do, in both languages.
    pub fn message(&self) -> Bilingual {
        match self {
            SizingError::NothingFits { budget } => {
                let (window, output) = (budget.window_tokens, budget.output_tokens);
                t::SIZING_ERROR_NOTHING_FITS
                    .bilingual_with(&[("window", &window), ("output", &output)])
            }
        }
    }
}

/// The prompt sizes to plan, in the order asked: sizes past the room of `budget` are
/// clipped to it, and a clipped size equal to one already planned is dropped. Without a
/// budget every size is kept as asked.
pub fn fit_sizes(
    requested: &[u32],
    budget: Option<ContextBudget>,
) -> Result<(Vec<u32>, Vec<Clip>), SizingError> {
    let Some(budget) = budget else {
        return Ok((requested.to_vec(), Vec::new()));
    };
    let room = budget.prompt_room();
    if room == 0 {
        return Err(SizingError::NothingFits { budget });
    }
    Ok(fit_under(
        requested,
        room,
        Clipped::Prompt,
        budget.window_tokens,
        budget.output_tokens,
    ))
}

/// The output limits to plan for a prompt of `prompt_tokens` (the server's count) in a
/// window of `window_tokens`: limits past the room are clipped, repeats dropped.
pub fn fit_outputs(
    requested: &[u32],
    window_tokens: u32,
    prompt_tokens: u32,
) -> Result<(Vec<u32>, Vec<Clip>), SizingError> {
    let room = window_tokens
        .saturating_sub(prompt_tokens)
        .saturating_sub(CHAT_TEMPLATE_MARGIN_TOKENS);
    if room == 0 {
        return Err(SizingError::NothingFits {
            budget: ContextBudget {
                window_tokens,
                output_tokens: requested.iter().copied().min().unwrap_or(0),
            },
        });
    }
    Ok(fit_under(
        requested,
        room,
        Clipped::Output,
        window_tokens,
        prompt_tokens,
    ))
}

/// Clips `requested` to `room` (see [`fit_sizes`]).
fn fit_under(
    requested: &[u32],
    room: u32,
    clipped: Clipped,
    window_tokens: u32,
    reserved_tokens: u32,
) -> (Vec<u32>, Vec<Clip>) {
    let mut used: Vec<u32> = Vec::new();
    let mut clips = Vec::new();
    // Sizes that fit keep their place first, so a clipped size yields to an equal one
    // asked for outright.
    let fitting_has_room = requested.contains(&room);
    for &size in requested {
        if size <= room {
            used.push(size);
            continue;
        }
        let taken = fitting_has_room || used.contains(&room);
        clips.push(Clip {
            clipped,
            requested_tokens: size,
            used_tokens: (!taken).then_some(room),
            window_tokens,
            reserved_tokens,
        });
        if !taken {
            used.push(room);
        }
    }
    (used, clips)
}

/// The nonce at position 0 of calibration text `index` of an experiment seeded `seed`:
/// the same shape as a measured run's nonce (16 hex digits), never equal to one.
fn calibration_nonce(seed: u64, index: usize) -> String {
    run_nonce(seed ^ CALIBRATION_SEED_SALT, index)
}

/// One planned size after sizing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizedLevel {
    /// The target, in the server's tokens.
    pub target_tokens: u32,
    /// The size to ask [`sized_prompt`] for, in filler (ttft-sim) tokens, nonce included.
    pub filler_tokens: u32,
    /// The server's count of a prompt of this size (the last verification), if it counted.
    pub counted_tokens: Option<u32>,
}

/// How prompts are sized: the result of [`PromptSizer`] (or the estimate when the server
/// was not asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptSizing {
    /// Where the counts came from.
    pub source: CountSource,
    /// Server tokens per filler token (and offset) from the probe.
    pub calibration: TokenCalibration,
    /// Per target, as verified.
    pub levels: Vec<SizedLevel>,
    /// Counting requests the server answered (not measured runs).
    pub calibration_requests: usize,
    /// Sizes clipped or dropped to fit the context window.
    pub clips: Vec<Clip>,
}

impl Default for PromptSizing {
    fn default() -> Self {
        PromptSizing::estimate()
    }
}

impl PromptSizing {
    /// No count from the server: filler tokens are taken as server tokens (exact for
    /// ttft-sim).
    pub fn estimate() -> PromptSizing {
        PromptSizing {
            source: CountSource::Estimate,
            calibration: TokenCalibration::IDENTITY,
            levels: Vec::new(),
            calibration_requests: 0,
            clips: Vec::new(),
        }
    }

    /// The filler size, nonce included, for a prompt of `target_tokens` server tokens.
    pub fn filler_tokens_for(&self, target_tokens: u32) -> u32 {
        self.level(target_tokens).map_or_else(
            || self.calibration.planned_for(target_tokens),
            |level| level.filler_tokens,
        )
    }

    /// The server's count for prompts of `target_tokens`, when it counted one.
    pub fn counted_for(&self, target_tokens: u32) -> Option<TokenCount> {
        let tokens = self.level(target_tokens)?.counted_tokens?;
        Some(TokenCount {
            tokens,
            source: self.source,
        })
    }

    /// The prompt of `target_tokens` with `nonce` at position 0.
    pub fn prompt(&self, target_tokens: u32, lang: Lang, nonce: Option<&str>) -> String {
        sized_prompt(self.filler_tokens_for(target_tokens), lang, nonce)
    }

    fn level(&self, target_tokens: u32) -> Option<&SizedLevel> {
        self.levels
            .iter()
            .find(|level| level.target_tokens == target_tokens)
    }

    /// What a reader of the report needs to know about the sizes: where the counts came
    /// from, the calibration requests, and every clipped size.
    pub fn notes(&self) -> Vec<Bilingual> {
        let mut notes = vec![match self.source {
            CountSource::Estimate => t::SIZING_NOTE_ESTIMATE.bilingual(),
            source => {
                let requests = self.calibration_requests;
                let ratio = format!("{:.2}", self.calibration.tokens_per_sim_token);
                Bilingual::from_fn(|lang| {
                    t::SIZING_NOTE_CALIBRATED.fill(
                        lang,
                        &[
                            ("source", &source.label().get(lang)),
                            ("requests", &requests),
                            ("ratio", &ratio),
                        ],
                    )
                })
            }
        }];
        notes.extend(self.clips.iter().map(Clip::message));
        notes
    }
}

/// Where the sizer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for the probe's count.
    Probe,
    /// Waiting for the counts of round `round` of verification.
    Verify { round: usize },
    /// Sized.
    Done,
}

/// One target while it is being sized.
#[derive(Debug, Clone, PartialEq)]
struct Level {
    target_tokens: u32,
    filler_tokens: u32,
    /// (filler tokens, server count) of every verification, in order.
    tried: Vec<(u32, u32)>,
    settled: bool,
}

/// The calibrate-then-verify state machine (see the module docs).
///
/// ```
/// use ttft_core::lang::Lang;
/// use ttft_lab::experiment::sizing::{CountSource, PromptSizer, TokenCount};
///
/// // A server that counts every character as a token (4× the filler's rule).
/// let count = |text: &str| TokenCount {
///     tokens: text.chars().filter(|c| !c.is_whitespace()).count() as u32,
///     source: CountSource::ServerTokenizer,
/// };
/// let mut sizer = PromptSizer::new(&[1_000], Lang::En, 7, None);
/// while !sizer.needs_counts().is_empty() {
///     let answers: Vec<_> = sizer.needs_counts().iter().map(|q| Some(count(&q.text))).collect();
///     sizer.with_counts(&answers);
/// }
/// let sizing = sizer.finish();
/// let counted = sizing.counted_for(1_000).map(|c| c.tokens).unwrap_or(0);
/// assert!(counted.abs_diff(1_000) <= 20, "{counted}");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSizer {
    lang: Lang,
    seed: u64,
    budget: Option<ContextBudget>,
    levels: Vec<Level>,
    calibration: TokenCalibration,
    source: CountSource,
    phase: Phase,
    requests: usize,
    clips: Vec<Clip>,
    /// The texts asked for, and the level each belongs to (`None`: the probe).
    pending: Vec<CountQuery>,
    pending_levels: Vec<Option<usize>>,
}

impl PromptSizer {
    /// A sizer for `targets_tokens` (server tokens; already fitted to the window, see
    /// [`fit_sizes`]; repeats are sized once) of filler in `lang`. `budget` bounds every
    /// verified count by the context window.
    pub fn new(
        targets_tokens: &[u32],
        lang: Lang,
        seed: u64,
        budget: Option<ContextBudget>,
    ) -> PromptSizer {
        let mut targets = targets_tokens.to_vec();
        targets.sort_unstable();
        targets.dedup();
        let levels = targets
            .into_iter()
            .map(|target_tokens| Level {
                target_tokens,
                filler_tokens: target_tokens,
                tried: Vec::new(),
                settled: false,
            })
            .collect();
        let mut sizer = PromptSizer {
            lang,
            seed,
            budget,
            levels,
            calibration: TokenCalibration::IDENTITY,
            source: CountSource::Estimate,
            phase: Phase::Probe,
            requests: 0,
            clips: Vec::new(),
            pending: Vec::new(),
            pending_levels: Vec::new(),
        };
        let probe_tokens = sizer.probe_filler_tokens();
        sizer.pending = vec![CountQuery {
            text: sized_prompt(probe_tokens, lang, Some(&calibration_nonce(seed, 0))),
            target_tokens: None,
        }];
        sizer.pending_levels = vec![None];
        sizer
    }

    /// Keeps `clips` (from [`fit_sizes`]) to report with the sizing.
    pub fn with_clips(mut self, clips: Vec<Clip>) -> PromptSizer {
        self.clips = clips;
        self
    }

    /// The probe's size: [`PROBE_FILLER_TOKENS`], or less when a quarter of the window's
    /// room is smaller (a tokenizer counting 4× the filler still fits).
    fn probe_filler_tokens(&self) -> u32 {
        let cap = self
            .budget
            .map_or(u32::MAX, |budget| budget.prompt_room() / 4);
        PROBE_FILLER_TOKENS
            .min(cap)
            .max(super::filler::CALIBRATION_MIN_PLANNED_TOKENS)
    }

    /// The texts to count now; empty once sized.
    pub fn needs_counts(&self) -> &[CountQuery] {
        &self.pending
    }

    /// Whether sizing is over.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The answers to [`needs_counts`](Self::needs_counts), in its order (`None`: the
    /// server could not count that text; missing answers count as `None`).
    pub fn with_counts(&mut self, answers: &[Option<TokenCount>]) {
        let pending = std::mem::take(&mut self.pending);
        let pending_levels = std::mem::take(&mut self.pending_levels);
        match self.phase {
            Phase::Probe => {
                let answer = answers.first().copied().flatten();
                let calibration = pending.first().zip(answer).and_then(|(query, count)| {
                    self.requests += 1;
                    self.source = count.source;
                    TokenCalibration::from_observation(
                        estimated_tokens(&query.text),
                        u64::from(count.tokens),
                    )
                });
                match calibration {
                    Some(calibration) => {
                        self.calibration = calibration;
                        for level in &mut self.levels {
                            level.filler_tokens =
                                calibration.planned_for(level.target_tokens).max(1);
                        }
                        self.phase = Phase::Verify { round: 0 };
                        self.ask_unsettled();
                    }
                    None => {
                        // Nothing to learn from: the estimate stands.
                        self.source = CountSource::Estimate;
                        self.phase = Phase::Done;
                    }
                }
            }
            Phase::Verify { round } => {
                for (position, level_index) in pending_levels.iter().enumerate() {
                    let Some(index) = *level_index else { continue };
                    let answer = answers.get(position).copied().flatten();
                    self.verify_level(index, answer);
                }
                if round + 1 >= MAX_VERIFY_ROUNDS {
                    for index in 0..self.levels.len() {
                        self.settle_on_best(index);
                    }
                }
                if self.levels.iter().all(|level| level.settled) {
                    self.phase = Phase::Done;
                } else {
                    self.phase = Phase::Verify { round: round + 1 };
                    self.ask_unsettled();
                }
            }
            Phase::Done => {}
        }
    }

    /// Queues one prompt of every level not yet settled.
    fn ask_unsettled(&mut self) {
        let (queries, indexes): (Vec<CountQuery>, Vec<Option<usize>>) = self
            .levels
            .iter()
            .enumerate()
            .filter(|(_, level)| !level.settled)
            .map(|(index, level)| {
                let nonce = calibration_nonce(self.seed, 1 + index);
                let query = CountQuery {
                    text: sized_prompt(level.filler_tokens, self.lang, Some(&nonce)),
                    target_tokens: Some(level.target_tokens),
                };
                (query, Some(index))
            })
            .unzip();
        self.pending = queries;
        self.pending_levels = indexes;
    }

    /// The largest count a level may have: the context window's, when known.
    fn hard_max(&self) -> u32 {
        self.budget.map_or(u32::MAX, |budget| budget.hard_max())
    }

    /// Whether `counted` is on target for `target`.
    fn on_target(&self, target: u32, counted: u32) -> bool {
        let tolerance = SIZE_TOLERANCE_MIN_TOKENS
            .max((SIZE_TOLERANCE_SHARE * f64::from(target)).round() as u32);
        counted.abs_diff(target) <= tolerance && counted <= self.hard_max()
    }

    /// Takes one verification count of level `index`: settles it when on target, else
    /// resizes it by the count's own ratio.
    fn verify_level(&mut self, index: usize, answer: Option<TokenCount>) {
        let hard_max = self.hard_max();
        let Some(count) = answer else {
            // The server did not count this one: keep the calibrated size, uncounted.
            if let Some(level) = self.levels.get_mut(index) {
                level.settled = true;
            }
            return;
        };
        self.requests += 1;
        let on_target = self
            .levels
            .get(index)
            .is_some_and(|level| self.on_target(level.target_tokens, count.tokens));
        let Some(level) = self.levels.get_mut(index) else {
            return;
        };
        level.tried.push((level.filler_tokens, count.tokens));
        if on_target || count.tokens == 0 {
            level.settled = true;
            return;
        }
        // Aim at the target, or under the window when the target's count would not fit.
        let aim = f64::from(level.target_tokens.min(hard_max));
        let scaled = (f64::from(level.filler_tokens) * aim / f64::from(count.tokens)).round();
        let mut next = scaled.clamp(1.0, f64::from(u32::MAX)) as u32;
        if next == level.filler_tokens {
            // The filler's granularity: step by one toward the target.
            next = if count.tokens > level.target_tokens {
                next.saturating_sub(1).max(1)
            } else {
                next.saturating_add(1)
            };
        }
        if level.tried.iter().any(|(tried, _)| *tried == next) {
            self.settle_on_best(index);
        } else if let Some(level) = self.levels.get_mut(index) {
            level.filler_tokens = next;
        }
    }

    /// Settles level `index` on the closest count tried that fits the window (else the
    /// closest of all).
    fn settle_on_best(&mut self, index: usize) {
        let hard_max = self.hard_max();
        let Some(level) = self.levels.get_mut(index) else {
            return;
        };
        if level.settled {
            return;
        }
        let target = level.target_tokens;
        let distance = |(_, counted): &(u32, u32)| counted.abs_diff(target);
        let best = level
            .tried
            .iter()
            .filter(|(_, counted)| *counted <= hard_max)
            .min_by_key(|tried| distance(tried))
            .or_else(|| level.tried.iter().min_by_key(|tried| distance(tried)))
            .copied();
        if let Some((filler_tokens, _)) = best {
            level.filler_tokens = filler_tokens;
        }
        level.settled = true;
    }

    /// The sizing (what was reached so far when sizing is not over).
    pub fn finish(self) -> PromptSizing {
        let levels = self
            .levels
            .iter()
            .map(|level| SizedLevel {
                target_tokens: level.target_tokens,
                filler_tokens: level.filler_tokens,
                counted_tokens: level
                    .tried
                    .iter()
                    .rev()
                    .find(|(filler, _)| *filler == level.filler_tokens)
                    .map(|(_, counted)| *counted),
            })
            .collect();
        PromptSizing {
            source: self.source,
            calibration: self.calibration,
            levels,
            calibration_requests: self.requests,
            clips: self.clips,
        }
    }
}

/// The prompt size of a run, from the best source there is: the run's own usage, else the
/// server's count of a prompt of its planned size (`target_tokens`), else the planned size
/// itself (an estimate).
pub fn prompt_tokens_of(
    sample: &super::RunSample,
    target_tokens: u32,
    sizing: &PromptSizing,
) -> TokenCount {
    if let Some(tokens) = sample.prompt_tokens {
        return TokenCount {
            tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
            source: CountSource::ServerUsage,
        };
    }
    sizing.counted_for(target_tokens).unwrap_or(TokenCount {
        tokens: target_tokens,
        source: CountSource::Estimate,
    })
}

/// A note saying where the prompt token counts of a report (its token axis, its table and
/// its fits) came from: the weakest source among its points.
pub fn counts_note(source: CountSource) -> Bilingual {
    Bilingual::from_fn(|lang| {
        t::SIZING_NOTE_COUNTS_SOURCE.fill(lang, &[("source", &source.label().get(lang))])
    })
}
