//! The lab's entry point (`lab/`, built from `lab.html`): installs the crash banner, then
//! mounts the full app. The first screen is the lean widget, `src/bin/widget.rs`.

fn main() {
    ttft_meter::crash::install();
    leptos::mount::mount_to_body(ttft_meter::app::App);
}
