//! leptos-min's form, with engine-websys's engine run on Send (it reads the inputs and
//! writes its results into the panes by element id).

#[allow(dead_code)] // its hand-built DOM (`mount`): Leptos builds this one
#[path = "../../engine-websys/src/engine.rs"]
mod engine;

use leptos::prelude::*;

#[component]
fn Form() -> impl IntoView {
    let base_url = RwSignal::new(String::from("https://api.openai.com/v1"));
    let key = RwSignal::new(String::new());
    let model = RwSignal::new(String::from("gpt-4o-mini"));
    let prompt = RwSignal::new(String::from("Say hello."));
    let sends = RwSignal::new(0u32);
    let send = move |_| {
        sends.update(|count| *count += 1);
        leptos::task::spawn_local(engine::send());
    };
    view! {
        <main class="widget">
            <label>"Base URL"
                <input id="base-url" type="url" prop:value=base_url on:input=move |ev| base_url.set(event_target_value(&ev)) />
            </label>
            <label>"API key"
                <input id="key" type="password" prop:value=key on:input=move |ev| key.set(event_target_value(&ev)) />
            </label>
            <label>"Model"
                <input id="model" prop:value=model on:input=move |ev| model.set(event_target_value(&ev)) />
            </label>
            <input id="lang" />
            <label>"Prompt"
                <textarea id="prompt" prop:value=prompt on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
            </label>
            <button on:click=send disabled=move || base_url.with(String::is_empty)>"Send"</button>
            <p id="result">" (" {move || sends.get()} ")"</p>
            <pre id="answer"></pre>
            <pre id="reasoning"></pre>
            <p id="diagnosis"></p>
            <table id="readouts"></table>
        </main>
    }
}

fn main() {
    leptos::mount::mount_to_body(Form);
}
