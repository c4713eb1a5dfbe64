//! The key belongs to the origin it was typed for: a request to any other origin carries it
//! only after the user said so in the page, for that origin.
//!
//! The page keeps a [`KeyBinding`] in the tab's `sessionStorage` (one JSON slot: the key,
//! the origin it was typed for, and the origins the user allowed or refused since). Before
//! anything is sent with the key — a run, an experiment, a `/models` listing asked for by a
//! click — it asks [`KeyBinding::decision`]; requests made without a click (page load, a
//! preset or base URL change, a URL parameter) never carry the key at all.
//!
//! ```
//! use ttft_core::key_binding::{KeyBinding, KeyDecision};
//! use ttft_core::protocol::Protocol;
//!
//! let mut binding = KeyBinding::typed("sk-abc123456789", "https://api.openai.com/v1", Protocol::OpenAiChat);
//! assert_eq!(binding.decision("https://api.openai.com/v1/chat/completions"), KeyDecision::Allowed);
//! let elsewhere = "https://evil.example/v1/models";
//! assert_eq!(
//!     binding.decision(elsewhere),
//!     KeyDecision::NeedsConsent { origin: "https://evil.example".into() }
//! );
//! binding.answer("https://evil.example", false);
//! assert_eq!(binding.decision(elsewhere), KeyDecision::NoKey);
//! ```

use serde::{Deserialize, Serialize};

use crate::scrub::WINDOW_CHARS;

use crate::config::exact_origin;
use crate::lang::Lang;
use crate::protocol::Protocol;
use crate::request::normalize_base_url;
use crate::texts as t;

/// Whether a request to some URL may carry the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyDecision {
    /// Send it: the URL is on the origin the key was typed for, or one the user allowed.
    Allowed,
    /// Ask first: "Send your key to `origin`?". Until then, nothing is sent with the key.
    NeedsConsent {
        /// The origin the request goes to (`https://api.example.com`).
        origin: String,
    },
    /// Send the request without a key: there is none, the user refused this origin, or the
    /// URL has no origin a key could be sent to.
    NoKey,
}

/// The origin (`scheme://host[:port]`, lower case, default port left out) of an http or
/// https URL; `None` for anything else, or a URL with a user name or password.
pub fn url_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.contains('@') {
        return None;
    }
    exact_origin(&format!("{scheme}://{authority}"))
}

/// The pure rule: a key typed for `typed_for_origin` may go to `target_url` only when the
/// URL is on that same origin; any other origin needs the user's consent first.
pub fn key_allowed(typed_for_origin: Option<&str>, target_url: &str) -> KeyDecision {
    let Some(target) = url_origin(target_url) else {
        return KeyDecision::NoKey;
    };
    match typed_for_origin {
        Some(origin) if origin == target => KeyDecision::Allowed,
        _ => KeyDecision::NeedsConsent { origin: target },
    }
}

/// The key with the origin it was typed for and the user's answers for other origins (for
/// this tab). Its stored form is JSON; [`KeyBinding::from_stored`] also reads the plain key
/// older versions stored, as bound to no origin (so it is never sent without asking).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyBinding {
    /// The key as typed (trimmed when checked: [`crate::request::ApiKey::parse`]).
    pub key: String,
    /// The origin of the base URL when the key was typed; `None` when that URL had none.
    pub origin: Option<String>,
    /// Other origins the user allowed the key to go to.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Origins the user refused: requests there go without the key, without asking again.
    #[serde(default)]
    pub refused_origins: Vec<String>,
    /// The keys this tab held before the current one, newest last (at most
    /// [`MAX_EARLIER_KEYS`]): never sent, only scrubbed from what providers send back, since
    /// a provider (or a gateway's cache) may echo an old key. "Forget" forgets them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_keys: Vec<String>,
}

impl std::fmt::Debug for KeyBinding {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("KeyBinding")
            .field("key", &format_args!("({} characters)", self.key.len()))
            .field("origin", &self.origin)
            .field("allowed_origins", &self.allowed_origins)
            .field("refused_origins", &self.refused_origins)
            .field(
                "earlier_keys",
                &format_args!("({} keys)", self.earlier_keys.len()),
            )
            .finish()
    }
}

/// The most origins remembered per list (a bound on what a tab keeps).
pub const MAX_REMEMBERED_ORIGINS: usize = 32;

/// The most earlier keys a tab remembers for scrubbing.
pub const MAX_EARLIER_KEYS: usize = 8;

impl KeyBinding {
    /// The key just typed while the form's base URL was `base_url`: bound to that URL's
    /// origin (none when the URL cannot be called), with no other origin allowed.
    pub fn typed(key: &str, base_url: &str, protocol: Protocol) -> KeyBinding {
        let origin = normalize_base_url(base_url, protocol)
            .ok()
            .and_then(|endpoint| url_origin(&endpoint.endpoint_url));
        KeyBinding {
            key: key.to_owned(),
            origin,
            allowed_origins: Vec::new(),
            refused_origins: Vec::new(),
            earlier_keys: Vec::new(),
        }
    }

    /// [`KeyBinding::typed`], remembering this binding's keys (its key and its earlier
    /// ones) as earlier keys of the new one, so their echoes are still scrubbed.
    ///
    /// A key field changes a character at a time, and each change comes here: a key that the
    /// new one extends (typing on) is not remembered, an earlier key that is the start of
    /// another is dropped (deleting back), and only keys of [`WINDOW_CHARS`] characters or
    /// more are kept (a shorter one would make the scrubber remove every few characters of
    /// text). So typing a new key over an old one remembers the old one, not every prefix.
    pub fn retyped(&self, key: &str, base_url: &str, protocol: Protocol) -> KeyBinding {
        let mut binding = KeyBinding::typed(key, base_url, protocol);
        let new = key.trim();
        let mut earlier: Vec<String> = Vec::new();
        for old in self.earlier_keys.iter().chain(std::iter::once(&self.key)) {
            let old = old.trim();
            if old.chars().count() < WINDOW_CHARS || old == new || new.starts_with(old) {
                continue;
            }
            earlier.retain(|known| known != old && !old.starts_with(known.as_str()));
            if !earlier.iter().any(|known| known.starts_with(old)) {
                earlier.push(old.to_owned());
            }
        }
        let excess = earlier.len().saturating_sub(MAX_EARLIER_KEYS);
        earlier.drain(..excess);
        binding.earlier_keys = earlier;
        binding
    }

    /// Every key this binding holds: the current one (when typed) and the earlier ones.
    pub fn held_keys(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.key.trim())
            .filter(|key| !key.is_empty())
            .chain(self.earlier_keys.iter().map(String::as_str))
    }

    /// Whether there is anything to keep: a key, or earlier keys.
    pub fn holds_anything(&self) -> bool {
        self.held_keys().next().is_some()
    }

    /// Reads the stored form: the JSON of [`KeyBinding::to_stored`], or a plain key (as
    /// stored by earlier versions), which is bound to no origin.
    pub fn from_stored(text: &str) -> KeyBinding {
        if text.trim_start().starts_with('{') {
            if let Ok(binding) = serde_json::from_str::<KeyBinding>(text) {
                return binding;
            }
        }
        KeyBinding {
            key: text.to_owned(),
            ..KeyBinding::default()
        }
    }

    /// The stored form (JSON).
    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Whether a key was typed.
    pub fn has_key(&self) -> bool {
        !self.key.trim().is_empty()
    }

    /// Whether a request to `target_url` may carry the key now.
    pub fn decision(&self, target_url: &str) -> KeyDecision {
        if !self.has_key() {
            return KeyDecision::NoKey;
        }
        match key_allowed(self.origin.as_deref(), target_url) {
            KeyDecision::NeedsConsent { origin } if self.allowed_origins.contains(&origin) => {
                KeyDecision::Allowed
            }
            KeyDecision::NeedsConsent { origin } if self.refused_origins.contains(&origin) => {
                KeyDecision::NoKey
            }
            decision => decision,
        }
    }

    /// Remembers the user's answer for `origin` (for this tab): `send` allows the key
    /// there, otherwise requests there go without it.
    pub fn answer(&mut self, origin: &str, send: bool) {
        self.allowed_origins.retain(|known| known != origin);
        self.refused_origins.retain(|known| known != origin);
        let list = if send {
            &mut self.allowed_origins
        } else {
            &mut self.refused_origins
        };
        list.push(origin.to_owned());
        if list.len() > MAX_REMEMBERED_ORIGINS {
            list.remove(0);
        }
    }
}

/// How an origin is named in the consent question: without `https://` (the usual case),
/// with `http://` spelled out (the key would travel unencrypted to a remote host).
fn origin_label(origin: &str) -> &str {
    origin.strip_prefix("https://").unwrap_or(origin)
}

/// The consent question: "Send your key to api.example.com?", and what the key was typed for.
pub fn consent_question(lang: Lang, origin: &str, typed_for: Option<&str>) -> (String, String) {
    let target = origin_label(origin);
    let question = t::KEY_CONSENT_QUESTION.fill(lang, &[("target", &target)]);
    let detail = match typed_for {
        Some(typed_for) => t::KEY_CONSENT_TYPED_FOR.fill(
            lang,
            &[("typed_for", &origin_label(typed_for)), ("target", &target)],
        ),
        None => t::KEY_CONSENT_NOT_TYPED_FOR.fill(lang, &[("target", &target)]),
    };
    (question, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_remembers_the_earlier_ones_for_scrubbing_only() {
        let url = "https://api.example.com/v1";
        let first = KeyBinding::typed("sk-first-0001", url, Protocol::OpenAiChat);
        assert!(first
            .retyped("sk-first-0001-more", url, Protocol::OpenAiChat)
            .earlier_keys
            .is_empty());
        let second = first.retyped("sk-second-002", url, Protocol::OpenAiChat);
        let third = second.retyped(" sk-first-0001 ", url, Protocol::OpenAiChat);
        assert_eq!(second.earlier_keys, ["sk-first-0001"]);
        // Typing an earlier key again makes it current, not earlier.
        assert_eq!(third.earlier_keys, ["sk-second-002"]);
        assert_eq!(
            third.held_keys().collect::<Vec<_>>(),
            [" sk-first-0001 ".trim(), "sk-second-002"]
        );
        // Never sent: the decision reads the current key only.
        let cleared = third.retyped("", url, Protocol::OpenAiChat);
        assert_eq!(cleared.decision(url), KeyDecision::NoKey);
        assert!(cleared.holds_anything());
        // Typed a character at a time over an old key (select all, type): the old key is
        // remembered, not the new key's prefixes; deleting back keeps the longest.
        let mut typing = KeyBinding::typed("sk-old-key-123456", url, Protocol::OpenAiChat);
        for end in 1..="sk-new-key-654321".len() {
            typing = typing.retyped(&"sk-new-key-654321"[..end], url, Protocol::OpenAiChat);
        }
        for end in (10.."sk-new-key-654321".len()).rev() {
            typing = typing.retyped(&"sk-new-key-654321"[..end], url, Protocol::OpenAiChat);
        }
        assert_eq!(
            typing.earlier_keys,
            ["sk-old-key-123456", "sk-new-key-654321"]
        );
        // Bounded, oldest dropped; stored and read back; never in Debug.
        let mut binding = KeyBinding::default();
        for index in 0..20 {
            binding = binding.retyped(&format!("sk-key-{index:04}"), url, Protocol::OpenAiChat);
        }
        assert_eq!(binding.earlier_keys.len(), MAX_EARLIER_KEYS);
        assert_eq!(binding.earlier_keys[0], "sk-key-0011");
        assert_eq!(KeyBinding::from_stored(&binding.to_stored()), binding);
        assert!(!format!("{binding:?}").contains("sk-key"));
        // Older stored forms have none.
        let old = KeyBinding::from_stored(r#"{"key":"k","origin":null}"#);
        assert!(old.earlier_keys.is_empty());
        assert!(!KeyBinding::default().to_stored().contains("earlier_keys"));
    }

    #[test]
    fn origins_of_urls() {
        for (url, origin) in [
            (
                "https://API.openai.com/v1/chat/completions",
                Some("https://api.openai.com"),
            ),
            (
                "http://127.0.0.1:8787/v1?x=1",
                Some("http://127.0.0.1:8787"),
            ),
            ("https://h:443/v1", Some("https://h")),
            ("http://[::1]:8000/v1", Some("http://[::1]:8000")),
            ("https://user:pw@h/v1", None),
            ("ftp://h/", None),
            ("not a url", None),
        ] {
            assert_eq!(url_origin(url).as_deref(), origin, "{url}");
        }
    }

    #[test]
    fn the_rule() {
        let typed_for = Some("https://api.openai.com");
        assert_eq!(
            key_allowed(typed_for, "https://api.openai.com/v1/models"),
            KeyDecision::Allowed
        );
        assert_eq!(
            key_allowed(typed_for, "https://api.openai.com:8443/v1/models"),
            KeyDecision::NeedsConsent {
                origin: "https://api.openai.com:8443".into()
            }
        );
        assert_eq!(
            key_allowed(typed_for, "http://api.openai.com/v1/models"),
            KeyDecision::NeedsConsent {
                origin: "http://api.openai.com".into()
            }
        );
        assert_eq!(
            key_allowed(None, "https://api.openai.com/v1/models"),
            KeyDecision::NeedsConsent {
                origin: "https://api.openai.com".into()
            }
        );
        assert_eq!(
            key_allowed(typed_for, "javascript:alert(1)"),
            KeyDecision::NoKey
        );
    }

    #[test]
    fn stored_forms() {
        let legacy = KeyBinding::from_stored("sk-legacy-key-1234567");
        assert_eq!(legacy.origin, None);
        assert_eq!(
            legacy.decision("http://127.0.0.1:8787/v1/chat/completions"),
            KeyDecision::NeedsConsent {
                origin: "http://127.0.0.1:8787".into()
            }
        );
        let mut binding =
            KeyBinding::typed("k-123456789", "127.0.0.1:8787/v1", Protocol::OpenAiChat);
        assert_eq!(binding.origin.as_deref(), Some("http://127.0.0.1:8787"));
        binding.answer("https://b.example", true);
        let read = KeyBinding::from_stored(&binding.to_stored());
        assert_eq!(read, binding);
        assert_eq!(read.decision("https://b.example/v1"), KeyDecision::Allowed);
        assert!(!format!("{read:?}").contains("k-123456789"));
        assert_eq!(
            KeyBinding::default().decision("https://b.example/v1"),
            KeyDecision::NoKey
        );
    }

    #[test]
    fn answers_replace_each_other_and_are_bounded() {
        let mut binding =
            KeyBinding::typed("k-123456789", "https://a.example", Protocol::OpenAiChat);
        binding.answer("https://b.example", true);
        binding.answer("https://b.example", false);
        assert_eq!(binding.decision("https://b.example/v1"), KeyDecision::NoKey);
        for index in 0..100 {
            binding.answer(&format!("https://h{index}.example"), true);
        }
        assert_eq!(binding.allowed_origins.len(), MAX_REMEMBERED_ORIGINS);
    }

    #[test]
    fn the_question() {
        let (question, detail) = consent_question(
            Lang::En,
            "https://api.example.com",
            Some("http://127.0.0.1:8787"),
        );
        assert_eq!(question, "Send your API key to api.example.com?");
        assert!(detail.contains("http://127.0.0.1:8787"));
        let (question, _) = consent_question(Lang::Zh, "http://h.example", None);
        assert!(question.contains("http://h.example"));
    }
}
