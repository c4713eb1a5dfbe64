//! `--tls`: a self-signed certificate made at start (rcgen), never stored unless asked
//! (`--tls-cert-out` writes the certificate, never the key), and the rustls server
//! configuration with the ALPN offer.

use std::sync::Arc;

use base64::Engine as _;
use rcgen::PublicKeyData as _;
use rustls_pki_types::pem::PemObject as _;
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
    /// `--tls-cert` / `--tls-key` could not be read.
    #[error("cannot read {what} from {path}: {reason} (give PEM files, e.g. made by `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out cert.pem -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost`)")]
    Read {
        /// The certificate chain or the key.
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
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
    /// `--ignore-certificate-errors-spki-list` takes (`None` for a certificate read from a
    /// file).
    pub spki_sha256_base64: Option<String>,
}

impl Tls {
    /// Makes a key and a self-signed certificate for `options.names`, and the server
    /// configuration offering `options.alpn`; writes the certificate to
    /// `options.cert_out` when set.
    pub fn new(options: &TlsOptions) -> Result<Self, TlsError> {
        let (chain, key_der, cert_pem, spki_sha256_base64) = match &options.cert_and_key {
            Some((cert_path, key_path)) => {
                let (chain, key_der, cert_pem) = read_pem_files(cert_path, key_path)?;
                (chain, key_der, cert_pem, None)
            }
            None => {
                let made = make_certificate(&options.names)?;
                (made.0, made.1, made.2, Some(made.3))
            }
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| TlsError::Config(error.to_string()))?
            .with_no_client_auth()
            .with_single_cert(chain, key_der)
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

type Chain = Vec<CertificateDer<'static>>;

/// A new key and a self-signed certificate for `names`: the chain, the key, the
/// certificate's PEM and its SPKI hash.
fn make_certificate(
    names: &[String],
) -> Result<(Chain, PrivateKeyDer<'static>, String, String), TlsError> {
    let certified = rcgen::generate_simple_self_signed(names.to_vec()).map_err(|error| {
        TlsError::Certificate {
            names: names.to_vec(),
            reason: error.to_string(),
        }
    })?;
    let spki = certified.signing_key.subject_public_key_info();
    let spki_sha256_base64 =
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&spki));
    let cert_der: CertificateDer<'static> = certified.cert.der().clone();
    let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    Ok((
        vec![cert_der],
        key_der,
        certified.cert.pem(),
        spki_sha256_base64,
    ))
}

/// The chain and key of PEM files, and the chain's PEM text.
fn read_pem_files(
    cert_path: &std::path::Path,
    key_path: &std::path::Path,
) -> Result<(Chain, PrivateKeyDer<'static>, String), TlsError> {
    let failed = |what, path: &std::path::Path, reason: String| TlsError::Read {
        what,
        path: path.display().to_string(),
        reason,
    };
    let cert_pem = std::fs::read_to_string(cert_path)
        .map_err(|error| failed("the certificate", cert_path, error.to_string()))?;
    let chain = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<Chain, _>>()
        .map_err(|error| failed("the certificate", cert_path, error.to_string()))?;
    if chain.is_empty() {
        return Err(failed(
            "the certificate",
            cert_path,
            "no CERTIFICATE block".into(),
        ));
    }
    let key_der = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|error| failed("the key", key_path, error.to_string()))?;
    Ok((chain, key_der, cert_pem))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_for_the_names_and_its_spki_hash() {
        let tls = Tls::new(&TlsOptions::default()).expect("a certificate");
        assert!(tls.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        // base64 of 32 bytes.
        assert_eq!(tls.spki_sha256_base64.as_deref().map(str::len), Some(44));
        let other = Tls::new(&TlsOptions::default()).expect("a certificate");
        assert_ne!(
            tls.spki_sha256_base64, other.spki_sha256_base64,
            "a new key at every start"
        );
    }

    #[test]
    fn a_certificate_from_files_is_served_as_given() {
        let dir = std::env::temp_dir().join(format!("ttft-sim-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let made = make_certificate(&["127.0.0.1".into()]).expect("a certificate");
        let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert_path, &made.2).expect("write cert");
        let key_pem = rcgen::KeyPair::try_from(made.1.secret_der())
            .expect("the key")
            .serialize_pem();
        std::fs::write(&key_path, key_pem).expect("write key");
        let options = TlsOptions {
            cert_and_key: Some((cert_path.clone(), key_path.clone())),
            ..TlsOptions::default()
        };
        let tls = Tls::new(&options).expect("served from files");
        assert_eq!(tls.cert_pem, made.2);
        assert_eq!(tls.spki_sha256_base64, None);
        let missing = TlsOptions {
            cert_and_key: Some((dir.join("nope.pem"), key_path)),
            ..TlsOptions::default()
        };
        match Tls::new(&missing) {
            Err(error @ TlsError::Read { .. }) => assert!(error.to_string().contains("nope.pem")),
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("served without a certificate"),
        }
        let _ = std::fs::remove_dir_all(dir);
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
