//! Request building: base URL normalization, bodies and headers per protocol.
