//! The shared components as both pages compose them (header, endpoint form, run panel),
//! mounted in headless Chromium (wasm-bindgen-test) over the page's state with a scripted
//! carrier: the address's parameters, presets, the theme, both languages, a refused form,
//! a run's wait breakdown. Built without `zh-on-demand`: the Chinese column is compiled in.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_core::lang::Lang;
use ttft_core::preset::PRESETS;
use ttft_web::page::PageState;
use ttft_web::series::{plain_send_handler, SeriesContext};
use ttft_web::testing::UI_WAIT_MS;
use ttft_web::testing::{clear_storage, frames, mount, until, Mounted};
use ttft_web::texts as t;
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::views::endpoint::EndpointForm;
use ttft_web::views::header::PageHeader;
use ttft_web::views::run_panel::RunPanel;
use wasm_bindgen_test::*;

/// The pages' shared parts over the page's state, as the widget composes them.
fn page(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: ttft_web::transport::SharedCarrier = Rc::new(carrier.clone());
    mount(move || {
        let state = PageState::provide(&config, carrier);
        let context = SeriesContext::new(
            state.live,
            state.session,
            state.embed.clone(),
            (),
            state.carrier,
        );
        let send = plain_send_handler(state.form, state.gate, context.clone(), RwSignal::new(0.0));
        let stop = context.stopper();
        view! {
            <PageHeader theme=state.theme />
            <EndpointForm form=state.form streaming=state.live.streaming />
            <RunPanel live=state.live send=send stop=stop />
        }
    })
}

fn root_attribute(name: &str) -> Option<String> {
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .document_element()
        .unwrap()
        .get_attribute(name)
}

fn stored(slot: &str) -> Option<String> {
    web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(slot)
        .unwrap()
}

#[wasm_bindgen_test]
async fn the_addresss_parameters_fill_the_form() {
    let view = page(
        &[
            ("base_url", "https://api.example.com/v1"),
            ("protocol", "anthropic"),
            ("model", "claude-x"),
            ("prompt", "Count to three."),
            ("runs", "7"),
            ("theme", "dark"),
            // Never kept: a key in the address.
            ("api_key", "sk-in-the-url-0123456789"),
        ],
        &ScriptedCarrier::default(),
    );
    frames(1).await;
    assert_eq!(view.value("base-url"), "https://api.example.com/v1");
    assert_eq!(view.value("protocol"), "anthropic");
    assert_eq!(view.value("model"), "claude-x");
    assert_eq!(view.value("prompt"), "Count to three.");
    assert_eq!(view.value("run-count"), "7");
    assert_eq!(
        view.value("api-key"),
        "",
        "a key in the address is never used"
    );
    assert_eq!(view.value("theme"), "dark");
    assert_eq!(root_attribute("data-theme").as_deref(), Some("dark"));
    // The URL actually called, as the form shows it.
    assert!(
        view.text("url-preview")
            .contains("https://api.example.com/v1/messages"),
        "{}",
        view.text("url-preview")
    );
}

#[wasm_bindgen_test]
async fn a_preset_fills_base_url_protocol_and_model() {
    let view = page(&[], &ScriptedCarrier::default());
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    assert!(PRESETS.len() > 10, "{} presets", PRESETS.len());
    for preset in PRESETS {
        view.type_into("preset", preset.id);
        frames(1).await;
        assert_eq!(
            view.value("base-url"),
            preset.base_url_for(&origin),
            "{}",
            preset.id
        );
        if !preset.model.is_empty() {
            assert_eq!(view.value("model"), preset.model, "{}", preset.id);
        }
        assert_eq!(
            view.value("protocol"),
            ttft_core::protocol::ProtocolChoice::Fixed(preset.protocol).code(),
            "{}",
            preset.id
        );
    }
}

#[wasm_bindgen_test]
async fn the_theme_is_chosen_shown_and_remembered() {
    let view = page(&[], &ScriptedCarrier::default());
    frames(1).await;
    assert_eq!(view.value("theme"), "auto");
    assert_eq!(
        root_attribute("data-theme"),
        None,
        "auto follows the system"
    );
    view.type_into("theme", "light");
    frames(1).await;
    assert_eq!(root_attribute("data-theme").as_deref(), Some("light"));
    assert_eq!(
        stored(ttft_web::persist::THEME_SLOT).as_deref(),
        Some("light")
    );
    view.type_into("theme", "auto");
    frames(1).await;
    assert_eq!(root_attribute("data-theme"), None);
}

#[wasm_bindgen_test]
async fn both_languages_switch_every_text_and_are_remembered() {
    let view = page(&[], &ScriptedCarrier::default());
    frames(1).await;
    assert_eq!(view.text("status"), t::STATUS_READY.get(Lang::En));
    view.click("lang-zh");
    frames(1).await;
    assert_eq!(view.text("status"), t::STATUS_READY.get(Lang::Zh));
    let lang = root_attribute("lang").unwrap_or_default();
    assert!(lang.starts_with("zh"), "<html lang> follows: {lang}");
    assert_eq!(stored(ttft_web::persist::LANG_SLOT).as_deref(), Some("zh"));
    // A reload in Chinese: the saved language is the page's.
    drop(view);
    let config = UrlConfig::default();
    let view = mount(move || {
        let state = PageState::provide(&config, Rc::new(ScriptedCarrier::default()));
        view! { <PageHeader theme=state.theme /> <p data-testid="probe">{move || state.i18n.t(t::STATUS_READY)}</p> }
    });
    frames(1).await;
    assert_eq!(view.text("probe"), t::STATUS_READY.get(Lang::Zh));
    view.click("lang-en");
    frames(1).await;
    assert_eq!(view.text("probe"), t::STATUS_READY.get(Lang::En));
}

#[wasm_bindgen_test]
async fn a_refused_form_says_which_field_and_sends_nothing() {
    let carrier = ScriptedCarrier::default();
    let view = page(
        &[
            ("base_url", "http://127.0.0.1:9/v1"),
            ("protocol", "chat"),
            ("model", "m"),
        ],
        &carrier,
    );
    view.type_into("run-count", "0");
    view.click("send");
    view.until_attribute("status", "data-state", "invalid input", UI_WAIT_MS)
        .await;
    assert_eq!(
        view.attribute("input-error", "data-field").as_deref(),
        Some("runs"),
        "the refusal names its field"
    );
    assert!(
        view.text("input-error").contains('1'),
        "{}",
        view.text("input-error")
    );
    assert!(carrier.sent().is_empty(), "nothing was sent");
    // Fixed, it sends.
    carrier.then([Script::network_error("Failed to fetch", 1.0)]);
    view.type_into("run-count", "1");
    view.click("send");
    until(
        "the run failed",
        || match view.attribute("status", "data-state").as_deref() {
            Some("failed") => Ok(()),
            other => Err(format!("{other:?}")),
        },
        5_000.0,
    )
    .await
    .unwrap();
    assert_eq!(carrier.sent().len(), 1);
}

#[wasm_bindgen_test]
fn every_page_text_has_its_chinese_column() {
    // ttft-web's catalogue (both pages' shared texts); the widget's and the lab page's are
    // checked in their own packages' tests, ttft-core's and ttft-lab's natively.
    // Codes, protocol and API names, and the switch that names both languages in itself.
    let same_in_both = [
        "COLUMN_NETWORK_SETUP",
        "COLUMN_HTTP",
        "CONNECTION_UNKNOWN",
        "LANGUAGE_SWITCH",
        "MAX_TOKENS",
        "NETWORK_TIMING_VISIBLE",
        "OUTCOME_HTTP_STATUS",
    ];
    let missing = ttft_core::text::untranslated(t::ALL, &same_in_both);
    assert!(
        missing.is_empty(),
        "{} texts:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(t::ALL.len() > 50, "{}", t::ALL.len());
}
