//! English and Simplified Chinese. Every visible string is a catalogue text
//! ([`ttft_core::text::Text`], declared in its crate's `texts.rs`) read through [`I18n::t`] or
//! [`I18n::fill`], so no string can miss its translation.

use leptos::prelude::*;
use ttft_core::lang::{Bilingual, Lang};
use ttft_core::text::Text;

/// The page's language, shared through context.
#[derive(Clone, Copy)]
pub struct I18n {
    /// The current language; switching it re-renders every text.
    pub lang: RwSignal<Lang>,
}

impl I18n {
    /// The text in the current language (tracked: re-renders on switch).
    pub fn t(&self, text: Text) -> &'static str {
        text.get(self.lang.get())
    }

    /// A template in the current language with its values filled in (tracked).
    pub fn fill(&self, text: Text, values: &[(&str, &dyn std::fmt::Display)]) -> String {
        text.fill(self.lang.get(), values)
    }

    /// A text kept in both languages (a run's diagnosis), in the current language (tracked).
    pub fn pick(&self, text: &Bilingual) -> String {
        text.get(self.lang.get()).to_owned()
    }

    /// The current language without tracking it.
    pub fn lang_untracked(&self) -> Lang {
        self.lang.get_untracked()
    }
}

/// The browser's preferred language: Chinese for any `zh*` tag, else English.
pub fn browser_lang() -> Lang {
    web_sys::window()
        .and_then(|window| window.navigator().language())
        .map_or(Lang::En, |tag| Lang::from_language_tag(&tag))
}

/// Creates the page's language state and provides it to every component.
pub fn provide_i18n(initial: Lang) -> I18n {
    let i18n = I18n {
        lang: RwSignal::new(initial),
    };
    provide_context(i18n);
    i18n
}

/// The page's language state (English when no provider is mounted, as in unit tests).
pub fn use_i18n() -> I18n {
    use_context::<I18n>().unwrap_or_else(|| I18n {
        lang: RwSignal::new(Lang::En),
    })
}
