//! The lab's entry point (`lab/`, built from `lab.html`): installs the crash banner, then
//! mounts the lab. The first screen is the widget (the root package, `src/`).

fn main() {
    ttft_web::crash::install();
    leptos::mount::mount_to_body(ttft_lab_page::page::LabPage);
}
