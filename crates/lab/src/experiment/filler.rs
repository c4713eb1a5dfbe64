//! Deterministic prompt filler of a target token count, and calibration for real
//! tokenizers.
//!
//! # The counting rule (ttft-sim's, from the shared `ttft-tokens` crate)
//!
//! - every CJK ideograph (U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, U+20000–2A6DF,
//!   U+2A700–2EBEF, U+2F800–2FA1F, U+30000–3134F) is one token;
//! - every other maximal run of non-whitespace, non-ideograph characters is
//!   `ceil(chars / 4)` tokens (chars = Unicode scalar values);
//! - whitespace is free; a request's count is the sum over its texts.
//!
//! So the sim's `usage.prompt_tokens` for a [`sized_prompt`] equals its target exactly.
//! Real tokenizers count differently (English prose is about 1.3 tokens per word, not per
//! 4 characters); [`TokenCalibration`] corrects the planned sizes from one or two observed
//! `usage.prompt_tokens`.

use serde::{Deserialize, Serialize};

use ttft_core::lang::Lang;
use ttft_core::request::with_nonce;

/// Characters per token in a run of non-ideograph, non-space characters (the sim's rule).
pub use ttft_tokens::CHARS_PER_TOKEN as SIM_CHARS_PER_TOKEN;

/// Whether `c` is a CJK ideograph (one token each under the sim's rule).
pub use ttft_tokens::is_cjk_ideograph;

/// The token count the filler and every plan use for their own texts.
///
/// Today ttft-sim's rule ([`sim_token_count`]); switching to the shared token crate is
/// this one line. Servers count differently: see [`super::sizing`] for their own counts.
pub fn estimated_tokens(text: &str) -> u32 {
    sim_token_count(text)
}

/// Number of tokens of `text` under ttft-sim's counting rule (see the module docs).
pub fn sim_token_count(text: &str) -> u32 {
    ttft_tokens::count_tokens(text)
}

/// English source text, cycled. Plain prose about the topic, so a model reading it is not
/// confused by noise; every word is at most 3 sim tokens and "a" (1 token) recurs, so any
/// remainder can be filled exactly.
const ENGLISH_TEXT: &str = "The time to first token is the wait a person sees before an answer \
starts. It is the sum of the network, the queue and the prefill, which reads the whole \
prompt before the first token exists. A long prompt takes longer to read, a short one is \
quick, and the number of tokens asked for as output does not change it. A cache can skip \
the part of a prompt that was seen before, but only when the start is the same. When many \
requests arrive at once, some of them wait for a free slot, and a long prefill can hold a \
short request back.";

/// Chinese source text, cycled. Every character is one sim token: ideographs, and single
/// full-width punctuation marks that are never adjacent to another non-ideograph.
const CHINESE_TEXT: &str = "首字延迟是用户按下发送到看到第一个字的等待时间。它由网络时间，排队时间和预填充时间组成，\
预填充要先读完整个提示才能生成第一个字。提示越长读得越久，输出长度的上限并不改变它。前缀缓存可以跳过以前见过的部分，\
但只有开头完全相同才会命中。许多请求同时到达时，一部分要等待空闲的位置，一个很长的预填充会拖住后面的短请求。";

/// Filler text of exactly `target_tokens` tokens under the sim's rule, in `lang`.
///
/// Deterministic; a longer filler starts with the same text as a shorter one (up to the
/// last few words, chosen to land on the exact count).
pub fn filler_text(target_tokens: u32, lang: Lang) -> String {
    match lang {
        Lang::En => english_filler(target_tokens),
        Lang::Zh => chinese_filler(target_tokens),
    }
}

/// English filler: words in order; a word that would overshoot is skipped (a one-token
/// word comes within the sentence, so the loop always lands on the target).
fn english_filler(target_tokens: u32) -> String {
    let words: Vec<&str> = ENGLISH_TEXT.split_whitespace().collect();
    let mut text = String::new();
    let mut remaining = target_tokens;
    let mut skipped_in_a_row = 0;
    for word in words.iter().cycle() {
        if remaining == 0 || skipped_in_a_row > words.len() {
            break;
        }
        let cost = estimated_tokens(word);
        if cost > remaining {
            skipped_in_a_row += 1;
            continue;
        }
        skipped_in_a_row = 0;
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
        remaining -= cost;
    }
    text
}

/// Chinese filler: the first `target_tokens` characters of the cycled text.
fn chinese_filler(target_tokens: u32) -> String {
    CHINESE_TEXT
        .chars()
        .cycle()
        .take(target_tokens as usize)
        .collect()
}

/// A prompt of `target_tokens` sim tokens: `nonce` at position 0 (via
/// [`with_nonce`]), then filler for the rest. When the nonce alone is longer than the
/// target, the prompt is the nonce (and has more tokens than asked).
pub fn sized_prompt(target_tokens: u32, lang: Lang, nonce: Option<&str>) -> String {
    let nonce_tokens = nonce.map_or(0, estimated_tokens);
    let body = filler_text(target_tokens.saturating_sub(nonce_tokens), lang);
    with_nonce(nonce, &body)
}

/// Fewest planned tokens for which an observation calibrates: below this the provider's
/// fixed chat-template overhead (a handful of tokens) swamps the ratio.
pub const CALIBRATION_MIN_PLANNED_TOKENS: u32 = 50;

/// How a real tokenizer counts the filler, relative to the sim's rule:
/// `observed ≈ offset_tokens + tokens_per_sim_token · planned`.
///
/// `offset_tokens` is the provider's fixed overhead (chat template, role markers); it can
/// only be told apart from the ratio with two planned sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TokenCalibration {
    /// Real tokens per sim token of filler.
    pub tokens_per_sim_token: f64,
    /// Fixed tokens the provider adds to every prompt.
    pub offset_tokens: f64,
}

impl Default for TokenCalibration {
    fn default() -> Self {
        TokenCalibration::IDENTITY
    }
}

impl TokenCalibration {
    /// No correction (the sim itself, or before any observation).
    pub const IDENTITY: TokenCalibration = TokenCalibration {
        tokens_per_sim_token: 1.0,
        offset_tokens: 0.0,
    };

    /// From one prompt of `planned_tokens` sim tokens that the provider counted as
    /// `observed_prompt_tokens` (usage): a ratio with no offset. `None` when the planned size
    /// is below [`CALIBRATION_MIN_PLANNED_TOKENS`] or nothing was counted.
    pub fn from_observation(
        planned_tokens: u32,
        observed_prompt_tokens: u64,
    ) -> Option<TokenCalibration> {
        if planned_tokens < CALIBRATION_MIN_PLANNED_TOKENS || observed_prompt_tokens == 0 {
            return None;
        }
        Some(TokenCalibration {
            tokens_per_sim_token: observed_prompt_tokens as f64 / f64::from(planned_tokens),
            offset_tokens: 0.0,
        })
    }

    /// From several `(planned sim tokens, observed prompt tokens)` pairs: a least-squares
    /// line (ratio and offset) when at least two planned sizes differ, else the ratio of the
    /// sums through the origin. Pairs below [`CALIBRATION_MIN_PLANNED_TOKENS`] are ignored.
    pub fn from_observations(pairs: &[(u32, u64)]) -> Option<TokenCalibration> {
        let points: Vec<(f64, f64)> = pairs
            .iter()
            .filter(|(planned, observed)| {
                *planned >= CALIBRATION_MIN_PLANNED_TOKENS && *observed > 0
            })
            .map(|(planned, observed)| (f64::from(*planned), *observed as f64))
            .collect();
        let count = points.len() as f64;
        if points.is_empty() {
            return None;
        }
        let mean_x = points.iter().map(|p| p.0).sum::<f64>() / count;
        let mean_y = points.iter().map(|p| p.1).sum::<f64>() / count;
        let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
        let through_origin = TokenCalibration {
            tokens_per_sim_token: mean_y / mean_x,
            offset_tokens: 0.0,
        };
        if sxx <= 0.0 {
            return Some(through_origin);
        }
        let ratio = sxy / sxx;
        if ratio <= 0.0 {
            return Some(through_origin);
        }
        Some(TokenCalibration {
            tokens_per_sim_token: ratio,
            offset_tokens: mean_y - ratio * mean_x,
        })
    }

    /// The sim-token size to generate so that the provider counts about `target_tokens`.
    pub fn planned_for(&self, target_tokens: u32) -> u32 {
        if !(self.tokens_per_sim_token.is_finite() && self.tokens_per_sim_token > 0.0) {
            return target_tokens;
        }
        let planned = (f64::from(target_tokens) - self.offset_tokens) / self.tokens_per_sim_token;
        planned.round().clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// The count the provider is expected to report for `planned_tokens` sim tokens.
    pub fn expected_count(&self, planned_tokens: u32) -> f64 {
        self.offset_tokens + self.tokens_per_sim_token * f64::from(planned_tokens)
    }
}
