//! What both pages (the widget and the lab) set up before their views: the stored state
//! with the page's configuration over it, provided as context ([`PageState::provide`]), the
//! `ready` message to the host page, and the start of the transport ([`start_transport`]).

use leptos::prelude::*;
use ttft_core::config::{Theme, UrlConfig};
use ttft_core::record::Transport;
use wasm_bindgen::JsCast;

use crate::embed::Embed;
use crate::form::FormState;
use crate::i18n::{browser_lang, provide_i18n, I18n};
use crate::key_gate::KeyGate;
use crate::persist;
use crate::session::Session;
use crate::state::{LiveRun, RunsFilter};
use crate::transport::{CarrierSlot, SharedCarrier};

/// What both pages hold, provided as context: the language, the key's gate, the form, the
/// live run, the session's runs, the host page's channel, the runs' filter, the theme and
/// what carries the runs' requests.
pub struct PageState {
    pub i18n: I18n,
    pub gate: KeyGate,
    pub form: FormState,
    pub live: LiveRun,
    pub session: Session,
    pub embed: Embed,
    pub runs_filter: RwSignal<RunsFilter>,
    pub theme: RwSignal<Option<Theme>>,
    /// What carries every run's request: the page's fetch worker
    /// ([`crate::transport::page_carrier`]), or a test's script.
    pub carrier: CarrierSlot,
}

impl PageState {
    /// Reads the stored state (this tab's key, the history, the preferences) with the
    /// page's configuration over it, provides it all as context, and keeps `<html>`'s theme
    /// and language in step. The history is saved when the page is left. The runs' requests
    /// go through `carrier`.
    pub fn provide(config: &UrlConfig, carrier: SharedCarrier) -> PageState {
        let i18n = provide_i18n(
            config
                .lang
                .or_else(persist::saved_lang)
                .unwrap_or_else(browser_lang),
        );
        let gate = KeyGate::restored();
        provide_context(gate);
        let form = FormState::new(gate.binding.with_untracked(|binding| binding.key.clone()));
        form.apply_config(config);
        let live = LiveRun::new();
        let session = Session::restored(gate);
        let embed = Embed::from_config(config);
        provide_context(form);
        provide_context(live);
        provide_context(session);
        provide_context(embed.clone());
        // Which runs the results show; an experiment that starts shows its own.
        let runs_filter = RwSignal::new(RunsFilter::All);
        provide_context(runs_filter);
        let theme = RwSignal::new(config.theme.or_else(|| {
            persist::load_preference(persist::THEME_SLOT).and_then(|code| Theme::parse(&code))
        }));
        provide_context(theme);
        Effect::new(move |_| set_root_attribute("data-theme", theme.get().map(Theme::code)));
        Effect::new(move |_| set_root_attribute("lang", Some(i18n.lang.get().code())));
        save_on_pagehide(session);
        let carrier = CarrierSlot::provide(carrier);
        PageState {
            i18n,
            gate,
            form,
            live,
            session,
            embed,
            runs_filter,
            theme,
            carrier,
        }
    }
}

/// Tells the host page that the meter is here (`ttft-meter.ready`).
pub fn post_ready(embed: &Embed) {
    embed.post(
        "ttft-meter.ready",
        serde_json::json!({ "page_origin": persist::page_origin() }),
    );
}

/// The page's start: `transport` is `None` while the fetch worker starts, then the
/// transport runs will use (the page is ready; provided as context); `simulator` is `None`
/// until it is known whether ttft-sim serves this page (only then is it the default
/// endpoint, which the form then names).
pub struct PageStart {
    pub transport: RwSignal<Option<Transport>>,
    pub simulator: RwSignal<Option<bool>>,
}

/// The page's [`PageStart`] signals and the task that settles them (the worker started, the
/// simulator asked for at `probe_path`, both at once); the caller spawns the task (the lab
/// goes on with probe mode after it).
pub fn start_transport(
    form: FormState,
    probe_path: &'static str,
) -> (PageStart, impl std::future::Future<Output = ()>) {
    let transport = RwSignal::new(None::<Transport>);
    provide_context(transport);
    let simulator = RwSignal::new(None::<bool>);
    let task = async move {
        let (api_base, kind) = futures_util::future::join(
            crate::form::detect_simulator(probe_path),
            crate::transport::prewarm(),
        )
        .await;
        if let Some(api_base) = &api_base {
            form.use_simulator(api_base);
        }
        simulator.set(Some(api_base.is_some()));
        transport.set(Some(kind));
    };
    (
        PageStart {
            transport,
            simulator,
        },
        task,
    )
}

/// Sets or removes an attribute of `<html>` (theme, language).
pub fn set_root_attribute(name: &str, value: Option<&str>) {
    let Some(root) = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.document_element())
    else {
        return;
    };
    let _ = match value {
        Some(value) => root.set_attribute(name, value),
        None => root.remove_attribute(name),
    };
}

/// Saves what is pending when the page is left.
pub fn save_on_pagehide(session: Session) {
    if let Some(window) = web_sys::window() {
        let flush = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            session.save();
        });
        let _ = window.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
        // Lives as long as the page.
        flush.forget();
    }
}
