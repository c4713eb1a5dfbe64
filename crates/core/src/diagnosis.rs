//! Diagnosis: HTTP status + body + network failure kind to a typed cause a user can act on.
