//! The widget's first screen in Leptos 0.8 with no logic behind it: three inputs, a prompt,
//! Send, a result line and a text pane, bound to signals.

use leptos::prelude::*;

#[component]
fn Form() -> impl IntoView {
    let base_url = RwSignal::new(String::from("https://api.openai.com/v1"));
    let key = RwSignal::new(String::new());
    let model = RwSignal::new(String::from("gpt-4o-mini"));
    let prompt = RwSignal::new(String::from("Say hello."));
    let result = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let sends = RwSignal::new(0u32);
    let send = move |_| {
        sends.update(|count| *count += 1);
        result.set(format!(
            "{} · {}",
            model.get_untracked(),
            base_url.get_untracked()
        ));
        text.update(|pane| pane.push_str(&prompt.get_untracked()));
    };
    view! {
        <main class="widget">
            <label>"Base URL"
                <input type="url" prop:value=base_url on:input=move |ev| base_url.set(event_target_value(&ev)) />
            </label>
            <label>"API key"
                <input type="password" prop:value=key on:input=move |ev| key.set(event_target_value(&ev)) />
            </label>
            <label>"Model"
                <input prop:value=model on:input=move |ev| model.set(event_target_value(&ev)) />
            </label>
            <label>"Prompt"
                <textarea prop:value=prompt on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
            </label>
            <button on:click=send disabled=move || base_url.with(String::is_empty)>"Send"</button>
            <p class="result">{move || result.get()} " (" {move || sends.get()} ")"</p>
            <Show when=move || !text.with(String::is_empty)>
                <pre class="pane">{move || text.get()}</pre>
            </Show>
        </main>
    }
}

fn main() {
    leptos::mount::mount_to_body(Form);
}
