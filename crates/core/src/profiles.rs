//! Saved profiles (`profiles.json` in the data directory): one per service, each with
//! the account that signed in last, which is how both hosts know the current account
//! without asking the keyring. The file holds no secret.

use std::path::{Path, PathBuf};

use flightdeck_client::ClientConfig;
use flightdeck_model::validate::codes;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The id of the profile that talks to the desktop app's embedded sandbox.
pub const EMBEDDED_ID: &str = "local-sandbox";

/// A saved profile: one service, its own workspace files and keyring namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredProfile {
    /// Stable id; names the workspace files.
    pub id: String,
    /// What the buyer calls it.
    pub name: String,
    /// Service root. For the embedded sandbox the loopback address it last listened on,
    /// kept so the keyring namespace (per base URL) stays the same across restarts.
    pub base_url: String,
    /// True for the built-in "Local sandbox" profile.
    pub embedded: bool,
    /// Who signed in last (no secret): the profile's current account.
    pub last_account: Option<LastAccount>,
    /// The largest listing a download reads, in MiB, when the account needs more than
    /// [`flightdeck_client::MAX_LISTING_BYTES`]; set by hand in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_listing_mb: Option<u32>,
}

impl StoredProfile {
    /// How the client reaches the profile's service: its address and listing limit.
    pub fn client_config(&self) -> Result<ClientConfig> {
        let mut config = ClientConfig::new(&self.base_url)?;
        if let Some(mb) = self.max_listing_mb {
            config.max_listing_bytes = usize::try_from(mb)
                .unwrap_or(usize::MAX)
                .saturating_mul(1024 * 1024);
        }
        Ok(config)
    }
}

/// Who signed in last on a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastAccount {
    /// Username or partner client id.
    pub account: String,
    /// True for a data partner.
    pub partner: bool,
}

/// The contents of `profiles.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profiles {
    /// Every saved profile; the embedded one always among them.
    pub profiles: Vec<StoredProfile>,
    /// The id of the profile the app opens with (and the CLI uses by default).
    pub active: String,
}

impl Profiles {
    /// Reads the file in `dir`, or the first-run defaults when there is none.
    pub fn read(dir: &Path) -> Result<Profiles> {
        let path = path(dir);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let mut file: Profiles =
                    serde_json::from_slice(&bytes).map_err(|source| Error::Damaged {
                        path: path.clone(),
                        source,
                    })?;
                if !file.profiles.iter().any(|p| p.embedded) {
                    file.profiles.insert(0, embedded_profile());
                }
                Ok(file)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Profiles {
                profiles: vec![embedded_profile()],
                active: EMBEDDED_ID.to_owned(),
            }),
            Err(e) => Err(Error::storage(&path, e)),
        }
    }

    /// Written whole or not at all ([`crate::files::write_json`]), so a crash never
    /// leaves half a file.
    pub fn write(&self, dir: &Path) -> Result<()> {
        crate::paths::create_private_dir(dir)?;
        crate::files::write_json(&path(dir), self)
    }

    /// The profile `id`.
    pub fn get(&self, id: &str) -> Option<&StoredProfile> {
        self.profiles.iter().find(|p| p.id == id)
    }

    /// The profile whose service is `base_url` (compared in normalised form).
    pub fn by_url(&self, base_url: &str) -> Option<&StoredProfile> {
        let wanted = normalise(base_url)?;
        self.profiles
            .iter()
            .find(|p| normalise(&p.base_url).as_deref() == Some(wanted.as_str()))
    }

    /// Adds a profile for the service at `base_url`; returns its id. The active profile
    /// does not change.
    pub fn add(&mut self, name: &str, base_url: &str) -> Result<String> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::invalid("name", codes::REQUIRED, "is required"));
        }
        let config = ClientConfig::new(base_url.trim())
            .map_err(|e| Error::invalid("baseUrl", codes::INVALID, &e.to_string()))?;
        let id = self.unique_id(name);
        self.profiles.push(StoredProfile {
            id: id.clone(),
            name: name.to_owned(),
            base_url: config.base_url.to_string(),
            embedded: false,
            last_account: None,
            max_listing_mb: None,
        });
        Ok(id)
    }

    /// Records who signed in on profile `id`.
    pub fn remember_account(&mut self, id: &str, account: &str, partner: bool) {
        if let Some(p) = self.profiles.iter_mut().find(|p| p.id == id) {
            p.last_account = Some(LastAccount {
                account: account.to_owned(),
                partner,
            });
        }
    }

    /// The embedded profile's loopback address, when it has listened before.
    pub fn embedded_addr(&self) -> Option<std::net::SocketAddr> {
        let p = self.profiles.iter().find(|p| p.embedded)?;
        let url = url::Url::parse(&p.base_url).ok()?;
        let port = url.port().filter(|p| *p != 0)?;
        Some(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
    }

    /// Records where the embedded sandbox listens now, and answers where it listened
    /// before when that differs (its port moves when the one it had is taken). The
    /// current account stays: the caller moves its keyring entries to the new address
    /// ([`crate::Core::open`]).
    pub fn set_embedded_url(&mut self, url: &str) -> Option<String> {
        let p = self.profiles.iter_mut().find(|p| p.embedded)?;
        if p.base_url == url {
            return None;
        }
        Some(std::mem::replace(&mut p.base_url, url.to_owned()))
    }

    /// An id made from the name: lower-case letters and digits, single dashes between
    /// words (never `--`, which separates the profile in workspace file names).
    fn unique_id(&self, name: &str) -> String {
        let mut base = String::new();
        for c in name.chars() {
            if c.is_ascii_alphanumeric() {
                base.push(c.to_ascii_lowercase());
            } else if !base.ends_with('-') {
                base.push('-');
            }
        }
        let base = base.trim_matches('-');
        let base = if base.is_empty() { "profile" } else { base };
        let mut id = base.to_owned();
        let mut n = 2;
        while self.get(&id).is_some() {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }
}

fn path(dir: &Path) -> PathBuf {
    dir.join("profiles.json")
}

fn normalise(base_url: &str) -> Option<String> {
    ClientConfig::new(base_url.trim())
        .ok()
        .map(|c| c.base_url.to_string())
}

fn embedded_profile() -> StoredProfile {
    StoredProfile {
        id: EMBEDDED_ID.to_owned(),
        name: "Local sandbox".to_owned(),
        base_url: "http://127.0.0.1:0/".to_owned(),
        embedded: true,
        last_account: None,
        max_listing_mb: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_run_has_the_embedded_profile_active() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let file = Profiles::read(dir.path())?;
        assert_eq!(file.active, EMBEDDED_ID);
        assert!(file.profiles[0].embedded);
        Ok(())
    }

    #[test]
    fn profiles_survive_a_round_trip_and_ids_are_unique() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let mut file = Profiles::read(dir.path())?;
        let a = file.add("Acme  Prod", "https://ads.example.com")?;
        let b = file.add("Acme prod", "https://ads2.example.com")?;
        assert_eq!(a, "acme-prod");
        assert_eq!(b, "acme-prod-2");
        file.remember_account(&a, "jane", false);
        file.write(dir.path())?;
        let again = Profiles::read(dir.path())?;
        assert_eq!(again, file);
        assert_eq!(
            again
                .by_url("https://ads.example.com/")
                .map(|p| p.id.as_str()),
            Some("acme-prod")
        );
        Ok(())
    }

    #[test]
    fn a_bad_address_names_the_field() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let mut file = Profiles::read(dir.path())?;
        match file.add("X", "not a url") {
            Err(Error::Invalid(e)) => assert_eq!(e.field, "baseUrl"),
            other => panic!("{other:?}"),
        }
        // The password would cross the network in the clear: refused at the field.
        match file.add("X", "http://ads.example.com") {
            Err(Error::Invalid(e)) => {
                assert_eq!(e.field, "baseUrl");
                assert!(e.message.contains("must use https://"), "{}", e.message);
            }
            other => panic!("{other:?}"),
        }
        match file.add("  ", "https://ads.example.com") {
            Err(Error::Invalid(e)) => assert_eq!(e.field, "name"),
            other => panic!("{other:?}"),
        }
        Ok(())
    }

    #[test]
    fn a_damaged_file_is_reported_not_replaced() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        std::fs::write(dir.path().join("profiles.json"), "{")
            .map_err(|e| Error::storage(dir.path(), e))?;
        assert!(matches!(
            Profiles::read(dir.path()),
            Err(Error::Damaged { .. })
        ));
        let text = std::fs::read_to_string(dir.path().join("profiles.json"))
            .map_err(|e| Error::storage(dir.path(), e))?;
        assert_eq!(text, "{");
        Ok(())
    }
}
