//! The page's header, on both pages: the name, the tagline, the language and theme switches.

use leptos::prelude::*;
use ttft_core::config::Theme;
use ttft_core::lang::Lang;

use crate::i18n::{switch_lang, use_i18n, I18n};
use crate::persist;
use crate::texts as t;

/// Switches the language and remembers the choice for the next visit.
fn choose_lang(i18n: I18n, lang: Lang) {
    persist::save_preference(persist::LANG_SLOT, Some(lang.code()));
    switch_lang(i18n, lang);
}

/// Light / dark / the system's choice; remembered for the next visit.
#[component]
pub fn ThemeSwitch(
    /// The chosen theme (`None`: follow the system).
    theme: RwSignal<Option<Theme>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let choose = move |event: web_sys::Event| {
        let chosen = Theme::parse(&event_target_value(&event));
        theme.set(chosen);
        persist::save_preference(persist::THEME_SLOT, chosen.map(Theme::code));
    };
    let code = move || theme.get().map_or("auto", Theme::code);
    view! {
        <label class="theme-switch">
            <span>{move || i18n.t(t::THEME)}</span>
            <select data-testid="theme" on:change=choose prop:value=code>
                <option value="auto" selected=move || code() == "auto">{move || i18n.t(t::THEME_SYSTEM)}</option>
                <option value="light" selected=move || code() == "light">{move || i18n.t(t::THEME_LIGHT)}</option>
                <option value="dark" selected=move || code() == "dark">{move || i18n.t(t::THEME_DARK)}</option>
            </select>
        </label>
    }
}

/// The page's header: the name, the tagline, the language and theme switches, and what the
/// page adds (the lab: the link back to the widget).
#[component]
pub fn PageHeader(
    theme: RwSignal<Option<Theme>>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <header>
            <h1>"TTFT Meter"</h1>
            <p class="tagline">
                {move || i18n.t(t::TAGLINE)}
            </p>
            <LanguageSwitch />
            <ThemeSwitch theme=theme />
            {children.map(|children| children())}
        </header>
    }
}

/// The language switch: each language's name in that language.
/// Each language's name in that language, for the switch's buttons. Not catalogue texts: a
/// name must read the same whichever language is loaded (the widget loads its Chinese
/// column on demand, and "中文" must show before it is).
const LANGUAGE_NAMES: (&str, &str) = ("English", "中文");

#[component]
pub fn LanguageSwitch() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="lang-switch" role="group" aria-label=move || i18n.t(t::LANGUAGE_SWITCH)>
            <button
                type="button"
                data-testid="lang-en"
                aria-pressed=move || (i18n.lang.get() == Lang::En).to_string()
                on:click=move |_| choose_lang(i18n, Lang::En)
            >
                {LANGUAGE_NAMES.0}
            </button>
            <button
                type="button"
                data-testid="lang-zh"
                aria-pressed=move || (i18n.lang.get() == Lang::Zh).to_string()
                on:click=move |_| choose_lang(i18n, Lang::Zh)
            >
                {LANGUAGE_NAMES.1}
            </button>
        </div>
    }
}
