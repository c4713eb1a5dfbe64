//! The API keys this process has received, on any request of any server in it (faulted or
//! not): the `echo_past_keys` faults read them back, as a gateway that logs every key and
//! shows its log to whoever asks.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::http::HeaderMap;

use crate::auth;

/// Most distinct keys remembered; the oldest is forgotten first.
pub const SEEN_KEYS_KEPT: usize = 16;

/// Distinct keys, oldest first (a key seen again becomes the newest).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeenKeys {
    keys: VecDeque<String>,
}

impl SeenKeys {
    /// An empty memory.
    pub const fn new() -> Self {
        Self {
            keys: VecDeque::new(),
        }
    }

    /// Remembers `key` as the newest, forgetting the oldest beyond [`SEEN_KEYS_KEPT`].
    pub fn remember(&mut self, key: &str) {
        if let Some(position) = self.keys.iter().position(|known| known == key) {
            self.keys.remove(position);
        }
        self.keys.push_back(key.to_string());
        while self.keys.len() > SEEN_KEYS_KEPT {
            self.keys.pop_front();
        }
    }

    /// The keys, oldest first.
    pub fn keys(&self) -> Vec<String> {
        self.keys.iter().cloned().collect()
    }
}

/// The process's memory.
static SEEN: Mutex<SeenKeys> = Mutex::new(SeenKeys::new());

/// The memory, even after a panic elsewhere left the lock poisoned (a list of strings is
/// never half-updated in a way that matters).
fn seen() -> std::sync::MutexGuard<'static, SeenKeys> {
    SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Remembers the keys of a request's headers ([`auth::sent_keys`]).
pub fn remember(headers: &HeaderMap) {
    let keys = auth::sent_keys(headers);
    if keys.is_empty() {
        return;
    }
    let mut memory = seen();
    for key in &keys {
        memory.remember(key);
    }
}

/// Every key remembered, oldest first.
pub fn snapshot() -> Vec<String> {
    seen().keys()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_distinct_keys_oldest_first() {
        let mut memory = SeenKeys::new();
        for index in 0..20 {
            memory.remember(&format!("k{index}"));
        }
        let keys = memory.keys();
        assert_eq!(keys.len(), SEEN_KEYS_KEPT);
        assert_eq!(keys.first().map(String::as_str), Some("k4"));
        assert_eq!(keys.last().map(String::as_str), Some("k19"));
        memory.remember("k10");
        let keys = memory.keys();
        assert_eq!(keys.len(), SEEN_KEYS_KEPT);
        assert_eq!(keys.last().map(String::as_str), Some("k10"));
        assert_eq!(keys.iter().filter(|k| *k == "k10").count(), 1);
    }
}
