//! Which entities a bulk operation reaches, as a host names them: the rows the buyer
//! ticked, a table's "select all" (the table's query, less the rows unticked since), a
//! whole kind, or the account. A query is resolved here, over the index the table windows
//! read ([`crate::query::Tables::targets`]), so a "select all" of 100,000 rows never
//! crosses the IPC as ids: the page holds the query, the Rust side the rows.

use std::collections::HashSet;

use flightdeck_offline::bulk::plan::{EDITABLE_KINDS, Scope};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::query::{TableQuery, Tables};

/// The entities a bulk operation reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum BulkScope {
    /// The rows the buyer ticked, in the order given.
    Ids(Vec<EntityRef>),
    /// A table's "select all": every row its query selects, in the table's order
    /// (`offset` and `limit` are ignored), but those in `except`.
    Query(TableSelection),
    /// Every entity of one kind.
    Kind(Kind),
    /// Every entity of the account.
    Account,
}

/// A "select all" of a table view, as the page holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TableSelection {
    /// The table's kind.
    pub kind: Kind,
    /// Its parent narrowing, filter and sort.
    pub query: TableQuery,
    /// Rows unticked since.
    pub except: Vec<EntityRef>,
}

impl From<Vec<EntityRef>> for BulkScope {
    fn from(ids: Vec<EntityRef>) -> BulkScope {
        BulkScope::Ids(ids)
    }
}

impl From<Scope> for BulkScope {
    fn from(scope: Scope) -> BulkScope {
        match scope {
            Scope::Selection(ids) => BulkScope::Ids(ids),
            Scope::Kind(kind) => BulkScope::Kind(kind),
            Scope::Account => BulkScope::Account,
        }
    }
}

impl BulkScope {
    /// The kinds the scope reaches, each once: what a field name it is given is resolved
    /// against ([`crate::fields::resolve_names`]).
    pub fn kinds(&self) -> Vec<Kind> {
        match self {
            BulkScope::Kind(kind) => vec![*kind],
            BulkScope::Query(q) => vec![q.kind],
            BulkScope::Ids(ids) => ids.iter().fold(Vec::new(), |mut ks, t| {
                if !ks.contains(&t.kind) {
                    ks.push(t.kind);
                }
                ks
            }),
            BulkScope::Account => EDITABLE_KINDS.to_vec(),
        }
    }

    /// The scope as the workspace's operations take it: a query becomes the rows it
    /// selects, read from `tables`.
    pub fn resolve(&self, tables: &Tables, ws: &Workspace) -> Result<Scope> {
        Ok(match self {
            BulkScope::Ids(ids) => Scope::Selection(ids.clone()),
            BulkScope::Query(q) => Scope::Selection(q.rows(tables, ws)?),
            BulkScope::Kind(kind) => Scope::Kind(*kind),
            BulkScope::Account => Scope::Account,
        })
    }

    /// Every entity the scope reaches, in order.
    pub fn targets(&self, tables: &Tables, ws: &Workspace) -> Result<Vec<EntityRef>> {
        match self {
            BulkScope::Ids(ids) => Ok(ids.clone()),
            BulkScope::Query(q) => q.rows(tables, ws),
            other => Ok(ws.targets(&other.resolve(tables, ws)?)?),
        }
    }
}

impl TableSelection {
    /// The rows the query selects, in the table's order, less `except`.
    pub fn rows(&self, tables: &Tables, ws: &Workspace) -> Result<Vec<EntityRef>> {
        let mut rows = tables.targets(ws, self.kind, &self.query)?;
        if !self.except.is_empty() {
            let except: HashSet<&EntityRef> = self.except.iter().collect();
            rows.retain(|t| !except.contains(t));
        }
        Ok(rows)
    }
}
