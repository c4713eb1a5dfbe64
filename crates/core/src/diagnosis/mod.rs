//! Diagnosis: HTTP status + body + network failure kind to a typed cause a user can act on.
//!
//! The app collects what it saw into a [`FailureContext`] and calls [`diagnose`]; the
//! [`Diagnosis`] it gets back names a [`Cause`] and gives a message and a fix in English or
//! Simplified Chinese ([`Lang`]), quoting the provider's own message when there is one
//! (text only, truncated, anything that looks like a key redacted).
//!
//! - `cause`: the vocabulary ([`Cause`], [`NetworkHint`], [`Diagnosis`]);
//! - `context`: what the app saw ([`FailureContext`]);
//! - `provider_cors`: what each provider lets a page do, as last reported;
//! - `provider_text`: the provider's error body and quote, context overflows;
//! - `retry_after`: `Retry-After`;
//! - `rules`: which cause a context means ([`diagnose`]);
//! - `text`: the words, in both languages.

mod cause;
mod context;
mod provider_cors;
mod provider_text;
mod retry_after;
mod rules;
mod text;

pub use cause::{Cause, Diagnosis, NetworkHint};
pub use context::FailureContext;
pub use provider_cors::{
    provider_cors, CorsStanding, ProviderCors, ProviderCorsNote, PROVIDER_CORS,
};
pub use provider_text::{read_context_overflow, MAX_QUOTED_CHARS};
pub use retry_after::parse_retry_after;
pub use rules::diagnose;
