//! Entry point of the web app: only mounts. Everything else lives in the library.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(ttft_meter::app::App);
}
