//! `--tls`: a self-signed certificate made at start (rcgen), never stored unless asked
//! (`--tls-cert-out` writes the certificate, never the key), and the rustls server
//! configuration with the ALPN offer.

use std::sync::Arc;

use base64::Engine as _;
use rcgen::PublicKeyData as _;
use sha2::{Digest, Sha256};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::network::TlsOptions;

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// rcgen refused the names or could not sign.
    #[error("cannot make a certificate for {names:?}: {reason} (names are IP addresses or DNS names, e.g. --tls-name 127.0.0.1 --tls-name api.test)")]
    Certificate {
        /// The names asked for.
        names: Vec<String>,
        /// rcgen's reason.
        reason: String,
    },
    /// rustls refused the configuration.
    #[error("cannot configure TLS: {0}")]
    Config(String),
    /// `--tls-cert-out` could not be written.
    #[error("cannot write the certificate to {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The OS's reason.
        reason: String,
    },
}

/// A certificate made at start and what clients need to trust it.
pub struct Tls {
    /// The acceptor for incoming connections.
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// The certificate, PEM.
    pub cert_pem: String,
    /// base64(SHA-256(SubjectPublicKeyInfo DER)): what Chromium's
    /// `--ignore-certificate-errors-spki-list` takes.
    pub spki_sha256_base64: String,
}

impl Tls {
    /// Makes a key and a self-signed certificate for `options.names`, and the server
    /// configuration offering `options.alpn`; writes the certificate to
    /// `options.cert_out` when set.
    pub fn new(options: &TlsOptions) -> Result<Self, TlsError> {
        let certified =
            rcgen::generate_simple_self_signed(options.names.clone()).map_err(|error| {
                TlsError::Certificate {
                    names: options.names.clone(),
                    reason: error.to_string(),
                }
            })?;
        let spki = certified.signing_key.subject_public_key_info();
        let spki_sha256_base64 =
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&spki));
        let cert_pem = certified.cert.pem();
        let cert_der: CertificateDer<'static> = certified.cert.der().clone();
        let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
            certified.signing_key.serialize_der(),
        ));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| TlsError::Config(error.to_string()))?
            .with_no_client_auth()
            .with_single_cert(vec![cert_der], key_der)
            .map_err(|error| TlsError::Config(error.to_string()))?;
        config.alpn_protocols = options.alpn.protocols();
        if let Some(path) = &options.cert_out {
            std::fs::write(path, &cert_pem).map_err(|error| TlsError::Write {
                path: path.display().to_string(),
                reason: error.to_string(),
            })?;
        }
        Ok(Self {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            cert_pem,
            spki_sha256_base64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_for_the_names_and_its_spki_hash() {
        let tls = Tls::new(&TlsOptions::default()).expect("a certificate");
        assert!(tls.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        // base64 of 32 bytes.
        assert_eq!(tls.spki_sha256_base64.len(), 44);
        let other = Tls::new(&TlsOptions::default()).expect("a certificate");
        assert_ne!(
            tls.spki_sha256_base64, other.spki_sha256_base64,
            "a new key at every start"
        );
    }

    #[test]
    fn bad_names_are_explained() {
        let options = TlsOptions {
            // Certificates name hosts in ASCII (IDNA); a raw non-ASCII name is refused.
            names: vec!["bücher.test".into()],
            ..TlsOptions::default()
        };
        match Tls::new(&options) {
            Err(error @ TlsError::Certificate { .. }) => {
                assert!(error.to_string().contains("--tls-name"));
            }
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("a certificate for an invalid name"),
        }
    }
}
