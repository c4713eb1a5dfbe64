//! Small controls shared by several panels.

use leptos::prelude::*;

use crate::i18n::use_i18n;
use crate::texts as t;

/// "Show all N" / "Show the newest W": the toggle of a list that shows only its newest
/// `window` items by default. Rendered only while the list is longer than that.
#[component]
pub fn ShowAllToggle(
    /// The button's test id.
    testid: &'static str,
    /// Whether every item is shown.
    show_all: RwSignal<bool>,
    /// How many items the list has.
    total: Memo<usize>,
    /// How many it shows by default.
    window: usize,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <Show when=move || { total.get() > window }>
            <button
                type="button"
                data-testid=testid
                aria-pressed=move || show_all.get().to_string()
                on:click=move |_| show_all.update(|all| *all = !*all)
            >
                {move || if show_all.get() {
                    i18n.fill(t::SHOW_THE_NEWEST, &[("window", &window)])
                } else {
                    i18n.fill(t::SHOW_ALL, &[("total", &total.get())])
                }}
            </button>
        </Show>
    }
}
