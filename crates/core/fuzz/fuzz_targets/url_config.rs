//! URL configuration: any query must never panic; every value kept is bounded, and the
//! value of a secret parameter is never kept anywhere.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::config::{UrlConfig, MAX_PARAM_CHARS};
use ttft_core::request::secret::is_secret_param;

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let pairs: Vec<(&str, &str)> = query
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    let config = UrlConfig::from_pairs(pairs.iter().copied());
    for value in [
        &config.preset,
        &config.base_url,
        &config.model,
        &config.prompt,
        &config.runs,
        &config.experiment,
        &config.source_id,
    ]
    .into_iter()
    .flatten()
    {
        assert!(value.chars().count() <= MAX_PARAM_CHARS);
    }
    assert!(config.refused_keys.iter().all(|name| name.chars().count() <= 64));
    // Every text the configuration keeps.
    let mut kept: Vec<&str> = [
        &config.preset,
        &config.base_url,
        &config.model,
        &config.prompt,
        &config.runs,
        &config.experiment,
        &config.source_id,
        &config.target_origin,
    ]
    .into_iter()
    .flatten()
    .map(String::as_str)
    .collect();
    kept.extend(config.refused_keys.iter().map(String::as_str));
    let kept = kept.join("\u{0}");
    for (name, value) in &pairs {
        // A secret's value is dropped; only a value that also appears in another parameter
        // or in a name can show up.
        let lower = value.to_lowercase();
        let elsewhere = pairs.iter().any(|(other_name, other_value)| {
            other_name.to_lowercase().contains(&lower)
                || (other_name != name && other_value.to_lowercase().contains(&lower))
        });
        if is_secret_param(name) && value.len() >= 8 && !value.contains('\0') && !elsewhere {
            assert!(!kept.contains(value), "the value of {name} was kept");
        }
    }
});
