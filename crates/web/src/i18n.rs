//! English and Simplified Chinese. Every visible string is a catalogue text
//! ([`ttft_core::text::Text`], declared in its crate's `texts.rs`) read through [`I18n::t`] or
//! [`I18n::fill`], so no string can miss its translation.

use leptos::prelude::*;
use ttft_core::lang::{Bilingual, Lang};
use ttft_core::text::Text;

use crate::transport::{main_thread, HttpRequest};

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

/// Where the widget's second language is, relative to its page (written beside it by
/// `scripts/zh-catalogue.mjs`).
pub const SECOND_LANGUAGE_FILE: &str = "zh.json";

/// Longest second-language file read, bytes (it is about 19 KB).
const MAX_LANGUAGE_FILE_BYTES: usize = 256 * 1024;

/// Makes `lang`'s texts available: loads them when this build loads them on demand (the
/// widget's Chinese, ttft-core's `zh-on-demand`) and they are not there yet. Returns whether
/// they are there now; when not (the file could not be read), the page reads as English.
pub async fn ensure_texts(lang: Lang) -> bool {
    if !ttft_core::text::needs_loading(lang) {
        return true;
    }
    let Ok(controller) = web_sys::AbortController::new() else {
        return false;
    };
    let request = HttpRequest {
        method: "GET",
        url: SECOND_LANGUAGE_FILE.to_owned(),
        headers: Vec::new(),
        body: None,
    };
    let Ok(response) = main_thread::open(&request, &controller.signal()).await else {
        return false;
    };
    if response.head.status != 200 {
        return false;
    }
    let Ok(Some(json)) = response.text_bounded(MAX_LANGUAGE_FILE_BYTES).await else {
        return false;
    };
    ttft_core::text::install(&json).is_ok()
}

/// Switches the page to `lang`, at once when its texts are there, else once they are loaded.
pub fn switch_lang(i18n: I18n, lang: Lang) {
    if !ttft_core::text::needs_loading(lang) {
        i18n.lang.set(lang);
        return;
    }
    leptos::task::spawn_local(async move {
        ensure_texts(lang).await;
        i18n.lang.set(lang);
    });
}
