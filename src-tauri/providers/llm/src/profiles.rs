//! Connection profiles: which endpoint, which model, and where its API key comes from.
//!
//! Profiles live in `endpoints.json` beside the settings; a key never does. It comes from an
//! environment variable the profile names, or it was entered once and is kept in a separate
//! `endpoint-keys.json` that only the owner can read (0600 on Unix, written to a temporary file
//! and renamed so a crash never leaves half a file). Nothing here ever puts a key into a
//! profile, a message or a `Debug` print.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::client::{Endpoint, Wire};

/// Where a profile's API key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeySource {
    /// No key (a local server).
    None,
    /// This environment variable, read when the profile is used.
    Env { var: String },
    /// Entered once, kept in the owner-only key file under the profile's name.
    Stored,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireName {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Gemini,
}

/// One endpoint a person connects to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    pub wire: WireName,
    pub base_url: String,
    pub model: String,
    pub key: KeySource,
    /// Seconds the stream may stay silent.
    #[serde(default = "default_idle_seconds")]
    pub idle_timeout_s: u64,
}

fn default_idle_seconds() -> u64 {
    60
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot {what} '{}': {source}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("'{}' is not a list of endpoint profiles: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("no endpoint profile '{0}'")]
    Unknown(String),
    #[error("profile '{profile}' takes its key from ${var}, which is not set")]
    MissingEnv { profile: String, var: String },
    #[error("profile '{0}' has no stored key: enter it once")]
    MissingStored(String),
    #[error("a profile needs a name, a base URL (http or https) and a model")]
    Incomplete,
}

/// The profiles and stored keys under one data directory.
#[derive(Debug, Clone)]
pub struct ProfileStore {
    profiles_path: PathBuf,
    keys_path: PathBuf,
}

impl ProfileStore {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            profiles_path: data_dir.join("endpoints.json"),
            keys_path: data_dir.join("endpoint-keys.json"),
        }
    }

    pub fn list(&self) -> Result<Vec<Profile>, ProfileError> {
        read_json(&self.profiles_path)
    }

    /// Adds or replaces the profile of that name.
    pub fn save(&self, profile: Profile) -> Result<(), ProfileError> {
        let url_ok =
            profile.base_url.starts_with("http://") || profile.base_url.starts_with("https://");
        if profile.name.trim().is_empty() || profile.model.trim().is_empty() || !url_ok {
            return Err(ProfileError::Incomplete);
        }
        let mut profiles = self.list()?;
        profiles.retain(|p| p.name != profile.name);
        profiles.push(profile);
        profiles.sort_by(|a, b| a.name.cmp(&b.name));
        write_json(&self.profiles_path, &profiles, false)
    }

    /// Removes a profile and its stored key.
    pub fn remove(&self, name: &str) -> Result<(), ProfileError> {
        let mut profiles = self.list()?;
        let before = profiles.len();
        profiles.retain(|p| p.name != name);
        if profiles.len() == before {
            return Err(ProfileError::Unknown(name.to_owned()));
        }
        write_json(&self.profiles_path, &profiles, false)?;
        let mut keys: BTreeMap<String, String> = read_json(&self.keys_path)?;
        if keys.remove(name).is_some() {
            write_json(&self.keys_path, &keys, true)?;
        }
        Ok(())
    }

    /// Keeps `key` for the profile `name` in the owner-only key file.
    pub fn store_key(&self, name: &str, key: &str) -> Result<(), ProfileError> {
        let mut keys: BTreeMap<String, String> = read_json(&self.keys_path)?;
        keys.insert(name.to_owned(), key.to_owned());
        write_json(&self.keys_path, &keys, true)
    }

    /// The endpoint a profile names, with its key resolved.
    pub fn endpoint(&self, name: &str) -> Result<Endpoint, ProfileError> {
        let profile = self
            .list()?
            .into_iter()
            .find(|p| p.name == name)
            .ok_or_else(|| ProfileError::Unknown(name.to_owned()))?;
        let api_key = match &profile.key {
            KeySource::None => None,
            KeySource::Env { var } => {
                Some(std::env::var(var).map_err(|_| ProfileError::MissingEnv {
                    profile: profile.name.clone(),
                    var: var.clone(),
                })?)
            }
            KeySource::Stored => {
                let mut keys: BTreeMap<String, String> = read_json(&self.keys_path)?;
                Some(
                    keys.remove(&profile.name)
                        .ok_or_else(|| ProfileError::MissingStored(profile.name.clone()))?,
                )
            }
        };
        Ok(Endpoint {
            wire: match profile.wire {
                WireName::OpenaiChat => Wire::OpenAiChat,
                WireName::OpenaiResponses => Wire::OpenAiResponses,
                WireName::Anthropic => Wire::Anthropic,
                WireName::Gemini => Wire::Gemini,
            },
            base_url: profile.base_url,
            model: profile.model,
            api_key,
            idle_timeout: Duration::from_secs(profile.idle_timeout_s.max(1)),
            max_retries: Endpoint::DEFAULT_MAX_RETRIES,
        })
    }
}

/// A missing file is an empty list or map.
fn read_json<T: serde::de::DeserializeOwned + Default>(path: &Path) -> Result<T, ProfileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => {
            return Err(ProfileError::Io {
                what: "read",
                path: path.to_owned(),
                source,
            })
        }
    };
    serde_json::from_str(&text).map_err(|e| ProfileError::Invalid {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Writes to a temporary file beside `path` and renames it over: readers see the old file or
/// the new one, never half of one. `private` files are readable by the owner only.
fn write_json<T: Serialize>(path: &Path, value: &T, private: bool) -> Result<(), ProfileError> {
    let io = |what: &'static str| {
        move |source| ProfileError::Io {
            what,
            path: path.to_owned(),
            source,
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io("create the directory of"))?;
    }
    let text = serde_json::to_string_pretty(value).map_err(|e| ProfileError::Invalid {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let tmp = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    {
        use std::io::Write;
        let mut file = options.open(&tmp).map_err(io("write"))?;
        file.write_all(text.as_bytes()).map_err(io("write"))?;
        file.sync_all().map_err(io("write"))?;
    }
    std::fs::rename(&tmp, path).map_err(io("replace"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str, key: KeySource) -> Profile {
        Profile {
            name: name.to_owned(),
            wire: WireName::OpenaiChat,
            base_url: "http://127.0.0.1:8080/v1".to_owned(),
            model: "smollm2".to_owned(),
            key,
            idle_timeout_s: 30,
        }
    }

    #[test]
    fn keys_stay_out_of_profiles_in_an_owner_only_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = ProfileStore::new(dir.path());
        store
            .save(profile("local", KeySource::Stored))
            .expect("save");
        store
            .store_key("local", "sk-secret-123")
            .expect("store key");
        let profiles = std::fs::read_to_string(dir.path().join("endpoints.json")).expect("read");
        assert!(!profiles.contains("sk-secret-123"), "{profiles}");
        let endpoint = store.endpoint("local").expect("endpoint");
        assert_eq!(endpoint.api_key.as_deref(), Some("sk-secret-123"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("endpoint-keys.json"))
                .expect("key file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        store.remove("local").expect("remove");
        let keys = std::fs::read_to_string(dir.path().join("endpoint-keys.json")).expect("read");
        assert!(!keys.contains("sk-secret-123"));
    }

    #[test]
    fn a_missing_key_says_where_it_should_come_from() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = ProfileStore::new(dir.path());
        let var = "TOOLSCOPE_TEST_KEY_THAT_IS_NEVER_SET";
        store
            .save(profile(
                "env",
                KeySource::Env {
                    var: var.to_owned(),
                },
            ))
            .expect("save");
        let error = store.endpoint("env").expect_err("unset variable");
        assert_eq!(
            error.to_string(),
            format!("profile 'env' takes its key from ${var}, which is not set")
        );
        store
            .save(profile("stored", KeySource::Stored))
            .expect("save");
        assert!(matches!(
            store.endpoint("stored"),
            Err(ProfileError::MissingStored(_))
        ));
        assert!(matches!(
            store.endpoint("nope"),
            Err(ProfileError::Unknown(_))
        ));
        let mut bad = profile("bad", KeySource::None);
        bad.base_url = "ftp://x".to_owned();
        assert!(matches!(store.save(bad), Err(ProfileError::Incomplete)));
    }
}
