//! Notices above the form, on both pages: the stored history's, the missing endpoint's and
//! the refused key's.

use leptos::prelude::*;

use crate::form::FormState;
use crate::i18n::use_i18n;
use crate::session::Session;
use crate::texts as t;

/// What the user should know about the stored history (storage full, a history set aside,
/// runs renumbered or refused), each with a button to dismiss it.
#[component]
pub fn HistoryNotices(
    /// The session whose notices are shown.
    session: Session,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || {
            session
                .notices
                .get()
                .into_iter()
                .enumerate()
                .map(|(index, notice)| {
                    let code = notice.code();
                    view! {
                        <p class="notice" role="alert" data-testid="storage-notice" data-notice=code>
                            {move || notice.message(i18n.lang.get())}
                            " "
                            <button type="button" class="small" on:click=move |_| session.dismiss_notice(index)>
                                {move || i18n.t(t::DISMISS_NOTICE)}
                            </button>
                        </p>
                    }
                })
                .collect_view()
        }}
    }
}

/// On a page not served by ttft-sim (a docs site, any static host), there is no endpoint
/// until the user picks one: says so, instead of failing on a made-up default.
#[component]
pub fn ChooseEndpointNotice(
    /// The form (its base URL).
    form: FormState,
    /// `Some(false)` once the page knows its origin is not the simulator.
    simulator: RwSignal<Option<bool>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let shown =
        move || simulator.get() == Some(false) && form.base_url.with(|url| url.trim().is_empty());
    view! {
        <Show when=shown>
            <p class="notice" data-testid="choose-endpoint" role="status">
                {move || i18n.t(t::CHOOSE_ENDPOINT_NOTICE)}
            </p>
        </Show>
    }
}

/// Says that a key given in the URL was refused, and why.
#[component]
pub fn KeyRefusedNotice(
    /// The refused parameter names.
    names: Vec<String>,
) -> impl IntoView {
    let i18n = use_i18n();
    (!names.is_empty()).then(|| {
        let names = names.join(", ");
        view! {
            <p class="notice" role="alert" data-testid="key-refused">
                {move || i18n.fill(t::KEY_REFUSED_NOTICE, &[("names", &names)])}
            </p>
        }
    })
}
