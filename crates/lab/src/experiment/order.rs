//! Seeded orders: run nonces (so no two prompts share a cache entry by accident) and the
//! interleaved order of levels and repetitions.

/// A nonce for run `run_index` of a plan seeded with `seed`: 16 lowercase hex digits,
/// distinct for distinct `(seed, run_index)` pairs in practice (SplitMix64 output). Under
/// ttft-sim's rule it is 4 tokens; the prompt builders count it in the planned size.
pub fn run_nonce(seed: u64, run_index: usize) -> String {
    format!("{:016x}", split_mix64(seed ^ mix_index(run_index)))
}

/// Spreads an index over 64 bits (golden-ratio increment of SplitMix64).
pub(super) fn mix_index(index: usize) -> u64 {
    (index as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// SplitMix64's output function: a bijection of u64 with good avalanche.
pub fn split_mix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The run order of `level_count` levels repeated `repetitions` times, as
/// `(level index, repetition)` pairs.
///
/// # Choice
///
/// Round `r` runs every level once, starting at level `(r + seed) mod L` and going round
/// (a cyclic Latin square): over `L` rounds every level takes every position in the round
/// exactly once, so a slow drift adds the same amount to every level's median and a
/// position effect (the first run of a round on a cold connection) hits each level equally.
/// With two levels this gives A B, B A, A B… (the classic ABBA counterbalancing).
pub fn interleaved_order(level_count: usize, repetitions: usize, seed: u64) -> Vec<(usize, usize)> {
    if level_count == 0 {
        return Vec::new();
    }
    let offset = (seed % level_count as u64) as usize;
    (0..repetitions)
        .flat_map(|round| {
            (0..level_count).map(move |step| ((round + offset + step) % level_count, round))
        })
        .collect()
}
