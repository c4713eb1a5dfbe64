//! Entry point of the web app: installs the crash banner, then mounts. Everything else lives
//! in the library.

fn main() {
    ttft_meter::crash::install();
    leptos::mount::mount_to_body(ttft_meter::app::App);
}
