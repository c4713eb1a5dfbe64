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

use crate::texts as t;

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

/// Filler text of exactly `target_tokens` tokens under the sim's rule, in `lang`.
///
/// Deterministic; a longer filler starts with the same text as a shorter one (up to the
/// last few words, chosen to land on the exact count).
pub fn filler_text(target_tokens: u32, lang: Lang) -> String {
    let source = t::PROMPT_FILLER.get(lang);
    match lang {
        Lang::En => english_filler(source, target_tokens),
        Lang::Zh => chinese_filler(source, target_tokens),
    }
}

/// English filler: words in order; a word that would overshoot is skipped (a one-token
/// word comes within the sentence, so the loop always lands on the target).
fn english_filler(source: &str, target_tokens: u32) -> String {
    let words: Vec<&str> = source.split_whitespace().collect();
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
fn chinese_filler(source: &str, target_tokens: u32) -> String {
    source
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
}
