//! The request-target check (ttft_relay::target): for any target and base path, no panic,
//! and an accepted target keeps every property of `violated_property` (forwarded unchanged,
//! under the base path, no dot or empty segment however a server decodes it, stable).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_relay::target::violated_property;

/// Base paths the target is checked against: the root, a plain one, a deep one, and one
/// with characters a base path may hold.
const BASES: [&str; 4] = ["", "/v1", "/compatible-mode/v1", "/api/v3;x/a.b"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let base = BASES[usize::from(choice) % BASES.len()];
    let target = String::from_utf8_lossy(rest);
    if let Some(property) = violated_property(&target, base) {
        panic!("{property}: {target:?} under {base:?}");
    }
    // The relay sees a target through http's parser first: the path and query it makes of
    // an origin-form target must keep the properties too.
    if let Ok(uri) = http::Uri::try_from(rest) {
        if uri.scheme().is_none() && uri.authority().is_none() {
            if let Some(path_and_query) = uri.path_and_query() {
                let target = path_and_query.as_str();
                if let Some(property) = violated_property(target, base) {
                    panic!("{property}: {target:?} (as http parsed it) under {base:?}");
                }
            }
        }
    }
});
