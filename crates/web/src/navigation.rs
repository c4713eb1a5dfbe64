//! The two pages' addresses: the lab (`lab/`) from the widget and back, each carrying the
//! page's configuration (its query; the fragment too on the way to the lab, where a share
//! link is read).

/// Where the lab is, relative to the widget's page.
pub const LAB_PATH: &str = "lab/";

/// This page's query and fragment (its configuration).
fn search_and_hash() -> String {
    let location = web_sys::window().map(|window| window.location());
    let search = location
        .as_ref()
        .and_then(|location| location.search().ok())
        .unwrap_or_default();
    let hash = location
        .as_ref()
        .and_then(|location| location.hash().ok())
        .unwrap_or_default();
    format!("{search}{hash}")
}

/// The lab's address with this page's configuration, relative to the widget's page.
pub fn lab_href() -> String {
    format!("{LAB_PATH}{}", search_and_hash())
}

/// From the lab: the widget's address with the lab's query (not its fragment: a share link
/// is the lab's), relative to the lab's page.
pub fn widget_href() -> String {
    let search = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    format!("../{search}")
}

/// Sends this page to the lab, without a history entry for the widget. Returns whether it
/// could.
pub fn replace_with_lab() -> bool {
    web_sys::window().is_some_and(|window| window.location().replace(&lab_href()).is_ok())
}
