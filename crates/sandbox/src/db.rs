//! SQLite storage: one connection behind a mutex, used from blocking threads.
//!
//! A single connection keeps the in-memory mode (no `--data`) and the file mode
//! identical, and SQLite serialises writers anyway; WAL lets readers of the file
//! (a developer's `sqlite3`) look while the sandbox runs.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension};
use rusqlite_migration::{M, Migrations};

use crate::error::{Error, Result};

/// Handle to the sandbox database; cheap to clone.
#[derive(Clone)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
}

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../migrations/0001_init.sql")),
        M::up(include_str!("../migrations/0002_code_grants.sql")),
        M::up(include_str!("../migrations/0003_app_redirect_scheme.sql")),
        M::up(include_str!("../migrations/0004_trafficking.sql")),
    ])
}

impl Db {
    /// Opens (creating if needed) the database file at `path`, or an in-memory one.
    pub fn open(path: Option<&Path>) -> Result<Self> {
        let mut conn = match path {
            Some(p) => Connection::open(p)?,
            None => Connection::open_in_memory()?,
        };
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations().to_latest(&mut conn).map_err(Error::Migrate)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `f` with the connection on a blocking thread.
    pub async fn call<F, R>(&self, f: F) -> Result<R>
    where
        F: FnOnce(&mut Connection) -> Result<R> + Send + 'static,
        R: Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut guard)
        })
        .await?
    }

    /// Runs `f` inside one transaction, committed only when `f` succeeds, so a rejected
    /// request leaves nothing half-written.
    pub async fn tx<F, R>(&self, f: F) -> Result<R>
    where
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<R> + Send + 'static,
        R: Send + 'static,
    {
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        })
        .await
    }

    /// Runs `f` synchronously; for seeding and tools that are not in a request.
    pub fn blocking<R>(&self, f: impl FnOnce(&mut Connection) -> Result<R>) -> Result<R> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }
}

/// Reads a value from the `meta` table.
pub fn meta_get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?)
}

/// Writes a value to the `meta` table.
pub fn meta_set(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }

    /// A database made before ad-order status existed keeps its ad orders, now Inactive,
    /// and can associate creatives with them.
    #[test]
    fn existing_ad_orders_start_inactive() -> Result<(), Box<dyn std::error::Error>> {
        let mut conn = Connection::open_in_memory()?;
        migrations().to_version(&mut conn, 3)?;
        conn.execute_batch(
            "INSERT INTO accounts (id, name) VALUES (1, 'Demo');
             INSERT INTO advertisers VALUES (1, 1, NULL, '{}');
             INSERT INTO campaigns VALUES (1, 1, 1, '{}');
             INSERT INTO ad_orders VALUES (1, 1, 1, '{\"name\":\"Old\"}');
             INSERT INTO creatives VALUES (1, 1, 1, 0, '{}');",
        )?;
        migrations().to_latest(&mut conn)?;
        let status: i64 = conn.query_row("SELECT status FROM ad_orders WHERE id = 1", [], |r| {
            r.get(0)
        })?;
        assert_eq!(status, 0);
        conn.execute("INSERT INTO creative_ad_orders VALUES (1, 1)", [])?;
        Ok(())
    }

    /// A database seeded when the app's redirect was `flightdeck://oauth/callback` keeps
    /// signing the app's partners in after the move to the reverse-DNS scheme.
    #[test]
    fn an_existing_partner_gets_the_apps_new_redirect_uri() -> Result<(), Box<dyn std::error::Error>>
    {
        let mut conn = Connection::open_in_memory()?;
        migrations().to_version(&mut conn, 2)?;
        conn.execute_batch(
            "INSERT INTO accounts (id, name) VALUES (1, 'Demo');
             INSERT INTO oauth_clients VALUES
               ('demo-partner', 'h', 1, '[\"flightdeck://oauth/callback\",\"http://127.0.0.1:*/callback\"]'),
               ('other', 'h', 1, '[\"https://partner.example/cb\"]');",
        )?;
        migrations().to_latest(&mut conn)?;
        let uris = |id: &str| -> rusqlite::Result<Vec<String>> {
            let text: String = conn.query_row(
                "SELECT redirect_uris FROM oauth_clients WHERE client_id = ?1",
                [id],
                |r| r.get(0),
            )?;
            Ok(serde_json::from_str(&text).unwrap_or_default())
        };
        assert_eq!(
            uris("demo-partner")?,
            [
                "flightdeck://oauth/callback",
                "http://127.0.0.1:*/callback",
                "com.flightdeck.desktop:/oauth/callback"
            ]
        );
        assert_eq!(uris("other")?, ["https://partner.example/cb"]);
        Ok(())
    }
}
