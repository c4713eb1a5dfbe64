//! Prefix cache in fixed-size token blocks, one namespace per model.
//!
//! Block `i` is identified by a chained hash over blocks `0..=i`, so a block hits only if
//! everything before it matched too (changing token 0 means no hit at all). Cached tokens =
//! the longest run of whole leading blocks seen before. Every whole block of a prompt is
//! remembered once the request arrives.

use std::collections::{HashMap, HashSet};

/// FNV-1a, 64 bit: stable across runs and platforms (unlike `DefaultHasher`).
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

/// Chained hashes of the whole blocks of `tokens`.
pub fn block_hashes(tokens: &[String], block_tokens: usize) -> Vec<u64> {
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

/// The cache of all models.
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
    pub fn lookup_and_insert(
        &mut self,
        model: &str,
        tokens: &[String],
        block_tokens: usize,
    ) -> u32 {
        let hashes = block_hashes(tokens, block_tokens);
        let seen = self.seen.entry(model.to_string()).or_default();
        let hit_blocks = hashes.iter().take_while(|hash| seen.contains(hash)).count();
        seen.extend(hashes);
        (hit_blocks * block_tokens) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(n: usize, tag: &str) -> Vec<String> {
        (0..n).map(|i| format!("{tag}{i}")).collect()
    }

    #[test]
    fn cache_blocks_table() {
        let mut cache = PrefixCache::new();
        let prompt = tokens(200, "t");
        // First sight: nothing cached; 3 whole blocks of 64 remembered.
        assert_eq!(cache.lookup_and_insert("m", &prompt, 64), 0);
        // Same prompt: the 3 whole blocks hit, the 8-token tail never does.
        assert_eq!(cache.lookup_and_insert("m", &prompt, 64), 192);
        // Another model has its own cache.
        assert_eq!(cache.lookup_and_insert("other", &prompt, 64), 0);
        // Same prefix, changed in block 2: blocks 0 and 1 hit.
        let mut changed = prompt.clone();
        changed[150] = "x".into();
        assert_eq!(cache.lookup_and_insert("m", &changed, 64), 128);
        // Changed at position 0: no hit at all, even though later blocks have equal text.
        let mut first_changed = prompt.clone();
        first_changed[0] = "x".into();
        assert_eq!(cache.lookup_and_insert("m", &first_changed, 64), 0);
        // Longer prompt with the same start: the old blocks hit.
        let mut longer = prompt.clone();
        longer.extend(tokens(100, "u"));
        assert_eq!(cache.lookup_and_insert("m", &longer, 64), 192);
        // Shorter than a block: never cached.
        assert_eq!(cache.lookup_and_insert("m", &tokens(63, "t"), 64), 0);
        assert_eq!(cache.lookup_and_insert("m", &tokens(63, "t"), 64), 0);
    }

    #[test]
    fn token_boundaries_matter() {
        let a = vec!["ab".to_string(), "c".to_string()];
        let b = vec!["a".to_string(), "bc".to_string()];
        assert_ne!(block_hashes(&a, 2), block_hashes(&b, 2));
    }
}
