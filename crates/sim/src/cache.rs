//! Prefix caches, two kinds (`--cache-mode`):
//!
//! - `blocks` (vLLM / SGLang style, the default): fixed-size token blocks, one namespace per
//!   model. Block `i` is identified by a chained hash over blocks `0..=i`, so a block hits
//!   only if everything before it matched too (changing token 0 means no hit at all).
//!   Cached tokens = the longest run of whole leading blocks seen before. Every whole block
//!   of a prompt is remembered once the request arrives.
//! - `last-prompt` (llama.cpp server slots, llama-cpp-python): each slot keeps only the
//!   last prompt it evaluated. Cached tokens = the common token prefix with that prompt,
//!   at most `prompt_tokens - 1` (llama.cpp always evaluates the last prompt token again to
//!   get logits). A request goes to a free slot holding the longest common prefix, else to
//!   the slot that frees first, as llama.cpp prefers the slot whose cached prompt is most
//!   similar.

use std::collections::{HashMap, HashSet};

/// Which prefix cache the server simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// Hash-chained token blocks, remembered forever (vLLM's automatic prefix caching).
    Blocks,
    /// Each slot keeps only its last prompt (llama.cpp).
    LastPrompt,
    /// No cache: cached tokens are always 0.
    Off,
}

impl CacheMode {
    /// The accepted names, in documentation order.
    pub const NAMES: &'static [&'static str] = &["blocks", "last-prompt", "off"];

    /// Parses `blocks`, `last-prompt` (or `last_prompt`) or `off`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "blocks" => Some(Self::Blocks),
            "last-prompt" | "last_prompt" => Some(Self::LastPrompt),
            "off" | "none" => Some(Self::Off),
            _ => None,
        }
    }
}

/// FNV-1a, 64 bit: stable across runs and platforms (unlike `DefaultHasher`).
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

/// A stable hash of one token's text (also the sim's token id source).
pub fn token_hash(token: &str) -> u64 {
    fnv1a(FNV_OFFSET, token.as_bytes())
}

/// Chained hashes of the whole blocks of `tokens`.
fn block_hashes(tokens: &[&str], block_tokens: usize) -> Vec<u64> {
    if block_tokens == 0 {
        return Vec::new();
    }
    let mut hashes = Vec::with_capacity(tokens.len() / block_tokens);
    let mut chain = FNV_OFFSET;
    for block in tokens.chunks_exact(block_tokens) {
        for token in block {
            chain = fnv1a(chain, token.as_bytes());
            // A separator, so ["ab","c"] and ["a","bc"] differ.
            chain = fnv1a(chain, &[0xFF]);
        }
        hashes.push(chain);
    }
    hashes
}

/// The block cache of all models.
#[derive(Debug, Default)]
pub struct PrefixCache {
    seen: HashMap<String, HashSet<u64>>,
}

impl PrefixCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the number of cached prompt tokens for `tokens` on `model`, then remembers
    /// the prompt's blocks.
    pub fn lookup_and_insert(&mut self, model: &str, tokens: &[&str], block_tokens: usize) -> u32 {
        let hashes = block_hashes(tokens, block_tokens);
        let seen = self.seen.entry(model.to_string()).or_default();
        let hit_blocks = hashes.iter().take_while(|hash| seen.contains(hash)).count();
        seen.extend(hashes);
        (hit_blocks * block_tokens) as u32
    }
}

/// The last prompt each slot evaluated (`last-prompt` mode).
#[derive(Debug, Default)]
pub struct SlotPrompts {
    /// Per slot: the model and its prompt's token hashes.
    last: Vec<Option<(String, Vec<u64>)>>,
}

impl SlotPrompts {
    /// `slots` empty slots.
    pub fn new(slots: usize) -> Self {
        Self {
            last: (0..slots.max(1)).map(|_| None).collect(),
        }
    }

    /// Tokens of `prompt` on `model` that `slot` still holds (see the module docs).
    pub fn cached_tokens(&self, slot: usize, model: &str, prompt: &[u64]) -> u32 {
        let Some(Some((held_model, held))) = self.last.get(slot) else {
            return 0;
        };
        if held_model != model {
            return 0;
        }
        let common = held.iter().zip(prompt).take_while(|(a, b)| a == b).count();
        common.min(prompt.len().saturating_sub(1)) as u32
    }

    /// Of `candidates` (free slots, in preference order), the one holding the longest
    /// prefix of `prompt` on `model`; the first candidate when none holds any.
    pub fn best_slot(&self, candidates: &[usize], model: &str, prompt: &[u64]) -> Option<usize> {
        let best = candidates
            .iter()
            .copied()
            .map(|slot| (self.cached_tokens(slot, model, prompt), slot))
            .filter(|(cached, _)| *cached > 0)
            // Longest prefix first; among equals, the earlier candidate.
            .min_by_key(|(cached, _)| std::cmp::Reverse(*cached))
            .map(|(_, slot)| slot);
        best.or(candidates.first().copied())
    }

    /// `slot` now holds `prompt` on `model`.
    pub fn remember(&mut self, slot: usize, model: &str, prompt: Vec<u64>) {
        if let Some(entry) = self.last.get_mut(slot) {
            *entry = Some((model.to_string(), prompt));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(n: usize, tag: &str) -> Vec<String> {
        (0..n).map(|i| format!("{tag}{i}")).collect()
    }

    fn refs(tokens: &[String]) -> Vec<&str> {
        tokens.iter().map(String::as_str).collect()
    }

    #[test]
    fn cache_blocks_table() {
        let mut cache = PrefixCache::new();
        let prompt = tokens(200, "t");
        // First sight: nothing cached; 3 whole blocks of 64 remembered.
        assert_eq!(cache.lookup_and_insert("m", &refs(&prompt), 64), 0);
        // Same prompt: the 3 whole blocks hit, the 8-token tail never does.
        assert_eq!(cache.lookup_and_insert("m", &refs(&prompt), 64), 192);
        // Another model has its own cache.
        assert_eq!(cache.lookup_and_insert("other", &refs(&prompt), 64), 0);
        // Same prefix, changed in block 2: blocks 0 and 1 hit.
        let mut changed = prompt.clone();
        changed[150] = "x".into();
        assert_eq!(cache.lookup_and_insert("m", &refs(&changed), 64), 128);
        // Changed at position 0: no hit at all, even though later blocks have equal text.
        let mut first_changed = prompt.clone();
        first_changed[0] = "x".into();
        assert_eq!(cache.lookup_and_insert("m", &refs(&first_changed), 64), 0);
        // Longer prompt with the same start: the old blocks hit.
        let mut longer = prompt.clone();
        longer.extend(tokens(100, "u"));
        assert_eq!(cache.lookup_and_insert("m", &refs(&longer), 64), 192);
        // Shorter than a block: never cached.
        assert_eq!(cache.lookup_and_insert("m", &refs(&tokens(63, "t")), 64), 0);
        assert_eq!(cache.lookup_and_insert("m", &refs(&tokens(63, "t")), 64), 0);
    }

    #[test]
    fn token_boundaries_matter() {
        assert_ne!(block_hashes(&["ab", "c"], 2), block_hashes(&["a", "bc"], 2));
    }

    fn hashes(tokens: &[String]) -> Vec<u64> {
        tokens.iter().map(|t| token_hash(t)).collect()
    }

    #[test]
    fn last_prompt_table() {
        let mut slots = SlotPrompts::new(2);
        let a = hashes(&tokens(100, "a"));
        let mut a_longer = a.clone();
        a_longer.extend(hashes(&tokens(10, "z")));
        let b = hashes(&tokens(100, "b"));
        // Empty slots: nothing cached, the first candidate.
        assert_eq!(slots.best_slot(&[0, 1], "m", &a), Some(0));
        assert_eq!(slots.cached_tokens(0, "m", &a), 0);
        slots.remember(0, "m", a.clone());
        // The same prompt again: all but its last token.
        assert_eq!(slots.cached_tokens(0, "m", &a), 99);
        // A longer prompt with the same start: the whole held prompt.
        assert_eq!(slots.cached_tokens(0, "m", &a_longer), 100);
        // Another model, another slot, or a different start: nothing.
        assert_eq!(slots.cached_tokens(0, "other", &a), 0);
        assert_eq!(slots.cached_tokens(1, "m", &a), 0);
        assert_eq!(slots.cached_tokens(0, "m", &b), 0);
        // A free slot that holds the prefix is preferred over the first free one.
        assert_eq!(slots.best_slot(&[1, 0], "m", &a_longer), Some(0));
        assert_eq!(slots.best_slot(&[1, 0], "m", &b), Some(1));
        // Only the last prompt is kept: b evicts a from slot 0.
        slots.remember(0, "m", b.clone());
        assert_eq!(slots.cached_tokens(0, "m", &a), 0);
        assert_eq!(slots.cached_tokens(0, "m", &b), 99);
        // A one-token prompt is always evaluated.
        slots.remember(1, "m", vec![7]);
        assert_eq!(slots.cached_tokens(1, "m", &[7]), 0);
    }

    #[test]
    fn mode_names() {
        for name in CacheMode::NAMES {
            assert!(CacheMode::parse(name).is_some(), "{name}");
        }
        assert_eq!(CacheMode::parse("lru"), None);
    }
}
