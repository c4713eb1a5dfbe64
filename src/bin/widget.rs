//! The lean widget's entry point (the page's `index.html`): installs the crash banner, then
//! mounts [`ttft_meter::widget::WidgetApp`]. The lab (`lab/`) is `src/main.rs`.

fn main() {
    ttft_meter::crash::install();
    leptos::mount::mount_to_body(ttft_meter::widget::WidgetApp);
}
