//! Which certificates the relay trusts upstream, and its rustls client configuration.
//!
//! The system's CA bundle (Debian's /etc/ssl/certs/ca-certificates.crt, or `SSL_CERT_FILE`)
//! plus `--ca-file`, read as PEM with rustls-pki-types. Not webpki-roots: the relay runs on
//! the user's own machine, whose store is the one their other tools trust (it holds the
//! corporate CA a TLS-inspecting proxy signs with, and follows the ca-certificates
//! package's updates), and reading a PEM file needs no crate beyond the ones ttft-sim
//! already builds.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::CertificateDer;
use tokio_rustls::rustls;

/// Why no trust store could be made.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// `--ca-file` could not be read or holds no certificate.
    #[error("--ca-file {path}: {reason}")]
    CaFile {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// Neither the system bundle nor `--ca-file` gave a certificate.
    #[error("no trusted certificate: {bundle} is missing or empty ({reason}); install the ca-certificates package, set SSL_CERT_FILE, or pass --ca-file FILE")]
    Empty {
        /// The system bundle looked for.
        bundle: String,
        /// Why it gave nothing.
        reason: String,
    },
    /// rustls refused the configuration.
    #[error("cannot configure TLS: {0}")]
    Config(String),
}

/// The trust store and what it was made of.
pub struct Trust {
    /// The roots.
    pub roots: rustls::RootCertStore,
    /// Certificates taken from the system bundle.
    pub system_certificates: usize,
    /// Certificates taken from `--ca-file`.
    pub extra_certificates: usize,
    /// Why the system bundle gave nothing, when it did not (a warning when `--ca-file`
    /// still gave roots).
    pub system_problem: Option<String>,
}

impl Trust {
    /// Reads `bundle` (a missing one is not an error while `extra` gives roots) and `extra`
    /// (its errors are).
    pub fn load(bundle: &Path, extra: Option<&PathBuf>) -> Result<Self, TrustError> {
        let mut roots = rustls::RootCertStore::empty();
        let (system_certificates, system_problem) = match read_pem_certificates(bundle) {
            Ok(certificates) => {
                let (added, _ignored) = roots.add_parsable_certificates(certificates);
                let problem = (added == 0).then(|| "no certificate in it".to_owned());
                (added, problem)
            }
            Err(reason) => (0, Some(reason)),
        };
        let mut extra_certificates = 0;
        if let Some(path) = extra {
            let failed = |reason: String| TrustError::CaFile {
                path: path.display().to_string(),
                reason,
            };
            let certificates = read_pem_certificates(path).map_err(failed)?;
            let (added, _ignored) = roots.add_parsable_certificates(certificates);
            if added == 0 {
                return Err(failed("no usable CERTIFICATE block".into()));
            }
            extra_certificates = added;
        }
        if roots.is_empty() {
            return Err(TrustError::Empty {
                bundle: bundle.display().to_string(),
                reason: system_problem.unwrap_or_default(),
            });
        }
        Ok(Self {
            roots,
            system_certificates,
            extra_certificates,
            system_problem,
        })
    }

    /// The client configuration: ring, TLS 1.2 and 1.3, ALPN h2 then http/1.1 (the
    /// upstream chooses, as with a browser or an SDK).
    pub fn client_config(self) -> Result<Arc<rustls::ClientConfig>, TrustError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| TrustError::Config(error.to_string()))?
            .with_root_certificates(self.roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

fn read_pem_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let iter = CertificateDer::pem_file_iter(path).map_err(|error| error.to_string())?;
    let certificates = iter
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| error.to_string())?;
    if certificates.is_empty() {
        return Err("no CERTIFICATE block".into());
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_bundle_and_no_ca_file_is_explained() {
        let missing = Path::new("/nonexistent/ca-certificates.crt");
        match Trust::load(missing, None) {
            Err(error @ TrustError::Empty { .. }) => {
                let text = error.to_string();
                assert!(text.contains("--ca-file") && text.contains("ca-certificates"));
            }
            Err(other) => panic!("unexpected {other}"),
            Ok(_) => panic!("trust without certificates"),
        }
        let bad = PathBuf::from("/nonexistent/ca.pem");
        assert!(matches!(
            Trust::load(missing, Some(&bad)),
            Err(TrustError::CaFile { .. })
        ));
    }
}
