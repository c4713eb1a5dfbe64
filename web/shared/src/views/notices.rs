//! Notices above the form, on both pages: the stored history's, the missing endpoint's and
//! the refused key's.

use leptos::prelude::*;

use crate::form::FormState;
use crate::i18n::use_i18n;
use crate::session::Session;

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
                                {move || i18n.t("OK", "知道了")}
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
                {move || i18n.t(
                    "Choose your endpoint: pick a preset below or type your server's base URL (this page is not served by the bundled simulator, so there is nothing to measure yet).",
                    "请选择要测量的接口：在下方选择预设，或填写服务器的基础 URL（此页面不是由内置模拟器提供的，因此还没有可测量的接口）。",
                )}
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
                {move || i18n.pick(
                    format!("A key in the page address ({names}) was ignored and removed from the address: addresses end up in browser history, server logs and shared links. Type the key in the API key field instead; it stays in this tab only."),
                    format!("页面地址中的密钥（{names}）已被忽略并从地址中移除：地址会留在浏览器历史、服务器日志和分享的链接中。请在 API 密钥输入框中输入密钥；它只保存在当前标签页中。"),
                )}
            </p>
        }
    })
}
