//! The key's gate: every request that would carry the key asks here first. The rule is
//! ttft-core's ([`KeyBinding::decision`]); this module asks the user in the page when the
//! rule says so ("Send your API key to api.example.com?") and remembers the answer for the
//! tab. Requests the user did not click for (page load, preset or base URL changes, URL
//! parameters) do not come here: they never carry the key.

use leptos::prelude::*;
use ttft_core::key_binding::{consent_question, KeyBinding, KeyDecision};
use ttft_core::protocol::ProtocolChoice;
use ttft_core::scrub::KeyScrubber;
use web_sys::MouseEvent;

use crate::i18n::use_i18n;
use crate::storage;
use crate::texts as t;

/// What runs once the key question is settled, with the time of the click that settled it
/// (the original click, or the answer's). It asks [`KeyGate::allowed_key`] for the key of
/// the URL it then sends to, so the key goes only where the rule allows at that moment.
type Continuation = Box<dyn FnOnce(f64)>;

/// The key with its origin, and the question waiting for an answer. Cheap to copy;
/// provided as context.
#[derive(Clone, Copy)]
pub struct KeyGate {
    /// The key, the origin it was typed for, and the answers for other origins.
    pub binding: RwSignal<KeyBinding>,
    /// The origin a request waits to know about (the question is shown while set).
    pub asking: RwSignal<Option<String>>,
    waiting: StoredValue<Option<Continuation>, LocalStorage>,
}

impl KeyGate {
    /// The gate with the key saved in this tab.
    pub fn restored() -> KeyGate {
        KeyGate {
            binding: RwSignal::new(storage::load_key_binding()),
            asking: RwSignal::new(None),
            waiting: StoredValue::new_local(None),
        }
    }

    /// The key was typed (or pasted) while the form's base URL was `base_url`: it belongs to
    /// that URL's origin from now on, and earlier answers are forgotten. The keys held
    /// before are kept as earlier keys, for scrubbing only.
    pub fn typed(&self, key: &str, base_url: &str, protocol: ProtocolChoice) {
        let binding = self
            .binding
            .with_untracked(|held| held.retyped(key, base_url, protocol.resolve(base_url)));
        storage::save_key_binding(&binding);
        self.binding.set(binding);
    }

    /// Forgets the key, the earlier keys and every answer.
    pub fn forget(&self) {
        storage::forget_api_key();
        self.binding.set(KeyBinding::default());
        self.cancel();
    }

    /// A scrubber for every key this tab holds (the current one and the earlier ones), if
    /// any.
    pub fn scrubber(&self) -> Option<KeyScrubber> {
        self.binding
            .with_untracked(|binding| KeyScrubber::for_keys(binding.held_keys()))
    }

    /// The key for a request to `target_url`: `Some` only when the rule allows it now
    /// (its own origin, or one the user allowed).
    pub fn allowed_key(&self, target_url: &str) -> Option<String> {
        self.binding.with_untracked(|binding| {
            (binding.decision(target_url) == KeyDecision::Allowed).then(|| binding.key.clone())
        })
    }

    /// Runs `then` at once when a request to `target_url` needs no question (the key may
    /// go, or there is none, or the user refused this origin), and after the user answered
    /// otherwise. `then` takes the key from [`KeyGate::allowed_key`]. `clicked_ms` is the
    /// click that wants the request; when the user is asked, `then` gets the answer's click
    /// instead (the wait for an answer is not latency).
    pub fn request(&self, target_url: &str, clicked_ms: f64, then: impl FnOnce(f64) + 'static) {
        let decision = self
            .binding
            .with_untracked(|binding| binding.decision(target_url));
        match decision {
            KeyDecision::Allowed | KeyDecision::NoKey => then(clicked_ms),
            KeyDecision::NeedsConsent { origin } => {
                self.waiting.set_value(Some(Box::new(then)));
                self.asking.set(Some(origin));
            }
        }
    }

    /// The user answered the question: `send` or not, with the answer's click time.
    pub fn answer(&self, send: bool, clicked_ms: f64) {
        let Some(origin) = self.asking.get_untracked() else {
            return;
        };
        let mut binding = self.binding.get_untracked();
        binding.answer(&origin, send);
        storage::save_key_binding(&binding);
        self.binding.set(binding);
        self.asking.set(None);
        if let Some(then) = self.waiting.try_update_value(Option::take).flatten() {
            then(clicked_ms);
        }
    }

    /// Drops a waiting question (nothing is sent): the form changed under it.
    pub fn cancel(&self) {
        self.waiting.set_value(None);
        self.asking.set(None);
    }
}

/// The gate provided by the app (a fresh one in isolated component tests).
pub fn use_key_gate() -> KeyGate {
    use_context::<KeyGate>().unwrap_or_else(KeyGate::restored)
}

/// The question, while one waits: "Send your API key to api.example.com?" with Send key /
/// Don't send. Fixed at the bottom of the window, so it is seen wherever the click was.
#[component]
pub fn KeyConsent() -> impl IntoView {
    let i18n = use_i18n();
    let gate = use_key_gate();
    let texts = move || {
        let origin = gate.asking.get()?;
        let typed_for = gate.binding.with(|binding| binding.origin.clone());
        Some(consent_question(
            i18n.lang.get(),
            &origin,
            typed_for.as_deref(),
        ))
    };
    view! {
        {move || texts().map(|(question, detail)| view! {
            <div class="key-consent" role="alertdialog" aria-labelledby="key-consent-question"
                aria-describedby="key-consent-detail" data-testid="key-consent"
                data-origin=move || gate.asking.get().unwrap_or_default()>
                <p id="key-consent-question" class="key-consent-question">{question}</p>
                <p id="key-consent-detail" class="meta">{detail}</p>
                <div class="actions">
                    <button type="button" class="primary" data-testid="key-consent-send"
                        on:click=move |event: MouseEvent| gate.answer(true, event.time_stamp())>
                        {move || i18n.t(t::KEY_CONSENT_SEND)}
                    </button>
                    <button type="button" data-testid="key-consent-refuse"
                        on:click=move |event: MouseEvent| gate.answer(false, event.time_stamp())>
                        {move || i18n.t(t::KEY_CONSENT_REFUSE)}
                    </button>
                </div>
            </div>
        })}
    }
}
