//! Sign-ins kept between runs, one owner-only file per server under the data directory
//! (`sign-ins/`), never in `settings.json`, the history or an export. rmcp reads and writes the
//! token through [`FileCredentialStore`], so a refreshed token replaces the old one on disk; what
//! rmcp's record lacks to use it again (where the redirect went, a configured client secret) is
//! kept beside it. Signing out deletes the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

/// Where the sign-in files live.
#[derive(Debug, Clone)]
pub struct SignInFiles {
    dir: PathBuf,
}

/// One server's sign-in, as stored.
#[derive(Clone, Serialize, Deserialize)]
pub struct SavedSignIn {
    /// The server's URL when it was signed in to: a changed URL means a different server.
    pub url: String,
    pub redirect_uri: String,
    /// A configured client secret (a registered client's own is not exposed by rmcp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub credentials: StoredCredentials,
}

impl SignInFiles {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The sign-ins of the app or the CLI: `sign-ins/` in their data directory.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self::new(data_dir.join("sign-ins"))
    }

    /// The file of the server named `server` at `url`.
    fn path(&self, server: &str, url: &str) -> PathBuf {
        let name: String = server
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        self.dir
            .join(format!("{name}-{:016x}.json", fnv1a(url.as_bytes())))
    }

    /// The sign-in of this server, if one is stored for this URL and readable.
    pub fn load(&self, server: &str, url: &str) -> Option<SavedSignIn> {
        let text = std::fs::read_to_string(self.path(server, url)).ok()?;
        serde_json::from_str::<SavedSignIn>(&text)
            .ok()
            .filter(|saved| saved.url == url)
    }

    /// Writes the whole record at once (a temporary file renamed over the old one), readable
    /// by the owner only.
    pub fn save(&self, server: &str, saved: &SavedSignIn) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        let path = self.path(server, &saved.url);
        let text = serde_json::to_vec_pretty(saved).map_err(std::io::Error::other)?;
        let temporary = path.with_extension("json.tmp");
        let mut file = private_file(&temporary)?;
        file.write_all(&text)?;
        file.sync_all()?;
        std::fs::rename(&temporary, &path)
    }

    /// Signs out: forgets the server's sign-in. `Ok(false)` when there was none.
    pub fn forget(&self, server: &str, url: &str) -> std::io::Result<bool> {
        match std::fs::remove_file(self.path(server, url)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// FNV-1a: a file name that stays the same across Rust releases, unlike std's hasher.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::create(path)
}

/// rmcp's view of one server's stored sign-in.
pub struct FileCredentialStore {
    files: SignInFiles,
    server: String,
    url: String,
    redirect_uri: String,
    client_secret: Option<String>,
}

impl FileCredentialStore {
    pub fn new(
        files: SignInFiles,
        server: &str,
        url: &str,
        redirect_uri: String,
        client_secret: Option<String>,
    ) -> Self {
        Self {
            files,
            server: server.to_owned(),
            url: url.to_owned(),
            redirect_uri,
            client_secret,
        }
    }
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .files
            .load(&self.server, &self.url)
            .map(|saved| saved.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let saved = SavedSignIn {
            url: self.url.clone(),
            redirect_uri: self.redirect_uri.clone(),
            client_secret: self.client_secret.clone(),
            credentials,
        };
        self.files
            .save(&self.server, &saved)
            .map_err(|e| AuthError::CredentialStoreError(format!("saving the sign-in: {e}")))
    }

    /// A refresh token the server refused (expired or revoked) cannot be used again: the
    /// stored sign-in is forgotten, unless another refresh replaced it meanwhile.
    async fn on_refresh_token_rejected(
        &self,
        rejected: &StoredCredentials,
    ) -> Result<(), AuthError> {
        let refresh_token = |credentials: &StoredCredentials| {
            serde_json::to_value(&credentials.token_response)
                .ok()
                .and_then(|json| json.get("refresh_token").cloned())
        };
        let Some(saved) = self.files.load(&self.server, &self.url) else {
            return Ok(());
        };
        if refresh_token(&saved.credentials) != refresh_token(rejected) {
            return Ok(());
        }
        self.clear().await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.files
            .forget(&self.server, &self.url)
            .map(|_| ())
            .map_err(|e| AuthError::CredentialStoreError(format!("forgetting the sign-in: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(url: &str) -> SavedSignIn {
        SavedSignIn {
            url: url.into(),
            redirect_uri: "http://127.0.0.1:4567/callback".into(),
            client_secret: Some("s3cret-value".into()),
            credentials: StoredCredentials::new(
                "client-1".into(),
                None,
                vec!["mcp:read".into()],
                Some(1),
            ),
        }
    }

    #[tokio::test]
    async fn keeps_a_sign_in_per_server_and_url_owner_only_and_forgets_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = SignInFiles::new(dir.path().join("sign-ins"));
        let url = "https://mcp.example.com/mcp";
        files.save("tracker", &saved(url)).expect("saves");
        let loaded = files.load("tracker", url).expect("loads");
        assert_eq!(loaded.credentials.client_id, "client-1");
        assert_eq!(loaded.client_secret.as_deref(), Some("s3cret-value"));
        assert!(files
            .load("tracker", "https://other.example.com/mcp")
            .is_none());
        assert!(files.load("docs", url).is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let entries: Vec<_> = std::fs::read_dir(dir.path().join("sign-ins"))
                .expect("dir")
                .map(|e| e.expect("entry").path())
                .collect();
            assert_eq!(entries.len(), 1, "no temporary file left: {entries:?}");
            let mode = std::fs::metadata(&entries[0])
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(dir.path().join("sign-ins"))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        assert!(files.forget("tracker", url).expect("forgets"));
        assert!(files.load("tracker", url).is_none());
        assert!(!files.forget("tracker", url).expect("nothing to forget"));
    }

    #[tokio::test]
    async fn rmcp_reads_and_replaces_the_token_through_the_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = SignInFiles::new(dir.path());
        let url = "http://127.0.0.1:9/mcp";
        let store = FileCredentialStore::new(
            files.clone(),
            "s",
            url,
            "http://127.0.0.1:1/callback".into(),
            None,
        );
        assert!(store.load().await.expect("load").is_none());
        store
            .save(StoredCredentials::new("c".into(), None, vec![], Some(7)))
            .await
            .expect("save");
        let loaded = store.load().await.expect("load").expect("stored");
        assert_eq!(
            (loaded.client_id.as_str(), loaded.token_received_at),
            ("c", Some(7))
        );
        store.clear().await.expect("clear");
        assert!(files.load("s", url).is_none());
    }
}
