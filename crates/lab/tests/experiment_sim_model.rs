//! A copy of ttft-sim's ground truth for the experiment tests (no dependency on the sim
//! crate): its token rule (from the shared `ttft-tokens` crate), its prefill formula and
//! built-in profiles, its prefix cache in 64-token blocks and its FIFO slots. Included by the other `experiment_*` tests with
//! `#[path]`; it has no tests of its own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::HashSet;

/// ttft-sim's token rule, from the crate both use (`ttft-tokens`): ideographs are one token
/// each; other non-space runs are cut into pieces of 4 characters; whitespace is free.
pub fn sim_tokenize(text: &str) -> Vec<String> {
    ttft_tokens::pieces(text).map(str::to_string).collect()
}

/// Token count under the sim's rule.
pub fn sim_count(text: &str) -> u64 {
    sim_tokenize(text).len() as u64
}

/// The timing parameters of a sim profile (ttft-sim `profile.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SimProfile {
    pub base_ms: f64,
    pub a_ms_per_token: f64,
    pub b_ms_per_token2: f64,
    pub itl_ms: f64,
    pub reasoning_tokens: u32,
    pub answer_tokens: u32,
    pub reserve_ms_per_max_token: f64,
}

/// `sim-linear-prefill`: 200 + 0.5·n.
pub const SIM_LINEAR_PREFILL: SimProfile = SimProfile {
    base_ms: 200.0,
    a_ms_per_token: 0.5,
    b_ms_per_token2: 0.0,
    itl_ms: 30.0,
    reasoning_tokens: 0,
    answer_tokens: 40,
    reserve_ms_per_max_token: 0.0,
};

/// `sim-slow-prefill`: 300 + 0.5·n + 2e-4·n².
pub const SIM_SLOW_PREFILL: SimProfile = SimProfile {
    base_ms: 300.0,
    a_ms_per_token: 0.5,
    b_ms_per_token2: 0.000_2,
    itl_ms: 30.0,
    reasoning_tokens: 0,
    answer_tokens: 40,
    reserve_ms_per_max_token: 0.0,
};

/// The default profile (unknown keys fall back to it): 100 + 0.1·n, ITL 20 ms.
pub const SIM_DEFAULT: SimProfile = SimProfile {
    base_ms: 100.0,
    a_ms_per_token: 0.1,
    b_ms_per_token2: 0.0,
    itl_ms: 20.0,
    reasoning_tokens: 0,
    answer_tokens: 40,
    reserve_ms_per_max_token: 0.0,
};

/// `sim-reasoning`: 150 + 0.1·n + 2e-6·n², 60 reasoning tokens at 25 ms.
pub const SIM_REASONING: SimProfile = SimProfile {
    base_ms: 150.0,
    a_ms_per_token: 0.1,
    b_ms_per_token2: 0.000_002,
    itl_ms: 25.0,
    reasoning_tokens: 60,
    answer_tokens: 40,
    reserve_ms_per_max_token: 0.0,
};

impl SimProfile {
    /// ttft-sim `timing::prefill_ms`.
    pub fn prefill_ms(&self, uncached_tokens: u64, max_tokens: Option<u32>) -> f64 {
        let n = uncached_tokens as f64;
        self.base_ms
            + self.a_ms_per_token * n
            + self.b_ms_per_token2 * n * n
            + self.reserve_ms_per_max_token * f64::from(max_tokens.unwrap_or(0))
    }

    /// How long a request holds its slot: prefill plus the decode gaps.
    pub fn slot_ms(&self, uncached_tokens: u64) -> f64 {
        let tokens = self.reasoning_tokens + self.answer_tokens;
        self.prefill_ms(uncached_tokens, None) + f64::from(tokens.saturating_sub(1)) * self.itl_ms
    }
}

/// ttft-sim's prefix cache: a block hits only if it and every block before it were seen.
#[derive(Default)]
pub struct SimCache {
    seen: HashSet<String>,
}

/// The sim's default block size, tokens.
pub const BLOCK_TOKENS: usize = 64;

impl SimCache {
    /// Cached tokens for `text`, then remembers its whole blocks.
    pub fn lookup_and_insert(&mut self, text: &str) -> u64 {
        let tokens = sim_tokenize(text);
        let mut chain = String::new();
        let mut keys = Vec::new();
        for block in tokens.chunks_exact(BLOCK_TOKENS) {
            for token in block {
                chain.push_str(token);
                chain.push('\u{1F}');
            }
            keys.push(chain.clone());
        }
        let hits = keys.iter().take_while(|k| self.seen.contains(*k)).count();
        self.seen.extend(keys);
        (hits * BLOCK_TOKENS) as u64
    }
}

/// ttft-sim `timing::queue_times_ms`: FIFO list schedule on `slots` slots.
pub fn queue_times_ms(slots: usize, arrivals_ms: &[f64], durations_ms: &[f64]) -> Vec<f64> {
    let mut free_at = vec![0.0_f64; slots.max(1)];
    arrivals_ms
        .iter()
        .zip(durations_ms)
        .map(|(arrival, duration)| {
            let mut slot = 0;
            for (index, at) in free_at.iter().enumerate() {
                if *at < free_at[slot] {
                    slot = index;
                }
            }
            let start = arrival.max(free_at[slot]);
            free_at[slot] = start + duration;
            start - arrival
        })
        .collect()
}

/// Deterministic uniform noise in `[0, max_ms)` (SplitMix64), like the sim's jitter.
pub struct Noise {
    state: u64,
    max_ms: f64,
}

impl Noise {
    pub fn new(seed: u64, max_ms: f64) -> Noise {
        Noise {
            state: seed,
            max_ms,
        }
    }

    pub fn next_ms(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * self.max_ms
    }
}

/// Contains a CJK ideograph.
pub fn has_cjk(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF))
}
