-- Accounts, credentials and tokens.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id                INTEGER PRIMARY KEY,
    name              TEXT NOT NULL,
    timezone          TEXT NOT NULL DEFAULT 'ET',
    currency          TEXT NOT NULL DEFAULT 'USD',
    channel_version   INTEGER NOT NULL DEFAULT 2,
    cost_optimization INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    -- 'editor' may write; 'viewer' may only read (403 on writes).
    role          TEXT NOT NULL DEFAULT 'editor'
);

CREATE TABLE oauth_clients (
    client_id     TEXT PRIMARY KEY,
    secret_hash   TEXT NOT NULL,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    -- JSON array of allowed redirect URIs; "http://127.0.0.1:*/callback" allows any port.
    redirect_uris TEXT NOT NULL
);

CREATE TABLE auth_codes (
    code_hash      TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    user_id        INTEGER NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT,
    challenge_method TEXT,
    expires_at     INTEGER NOT NULL,
    used           INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL,
    -- NULL for advertiser/agency user tokens; the client id for data-partner tokens.
    client_id  TEXT,
    expires_at INTEGER NOT NULL,
    revoked    INTEGER NOT NULL DEFAULT 0
);

-- Business entities. `body` is the entity as the service returns it (JSON), so fields
-- the sandbox does not model survive; the other columns index it.
CREATE TABLE advertisers (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    external_id TEXT,
    body        TEXT NOT NULL
);
CREATE INDEX advertisers_account ON advertisers(account_id);

CREATE TABLE campaigns (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    advertiser_id INTEGER NOT NULL REFERENCES advertisers(id),
    body          TEXT NOT NULL
);
CREATE INDEX campaigns_advertiser ON campaigns(account_id, advertiser_id);

CREATE TABLE flights (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    body        TEXT NOT NULL
);
CREATE INDEX flights_campaign ON flights(campaign_id);

CREATE TABLE ad_orders (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    body        TEXT NOT NULL
);
CREATE INDEX ad_orders_account ON ad_orders(account_id);

-- Allocates ids for ad-order audiences, which live inside the ad order's body.
CREATE TABLE audience_ids (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    order_id INTEGER NOT NULL
);

CREATE TABLE flight_caps (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    order_id   INTEGER NOT NULL REFERENCES ad_orders(id),
    flight_id  INTEGER NOT NULL REFERENCES flights(id),
    body       TEXT NOT NULL
);
CREATE INDEX flight_caps_order ON flight_caps(order_id);

CREATE TABLE creatives (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    advertiser_id INTEGER NOT NULL REFERENCES advertisers(id),
    created_at    INTEGER NOT NULL,
    body          TEXT NOT NULL
);

CREATE TABLE site_lists (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    type_id    INTEGER NOT NULL,
    strategy   TEXT
);

CREATE TABLE site_list_sites (
    list_id INTEGER NOT NULL REFERENCES site_lists(id),
    site_id INTEGER NOT NULL,
    PRIMARY KEY (list_id, site_id)
) WITHOUT ROWID;

CREATE TABLE site_list_rules (
    list_id INTEGER NOT NULL REFERENCES site_lists(id),
    name    TEXT NOT NULL,
    type    TEXT NOT NULL,
    PRIMARY KEY (list_id, name, type)
) WITHOUT ROWID;

CREATE TABLE segments (
    id                 INTEGER PRIMARY KEY,
    account_id         INTEGER NOT NULL REFERENCES accounts(id),
    service_segment_id TEXT NOT NULL UNIQUE,
    external_id        TEXT NOT NULL,
    -- Time of creation or of the last accepted upload; ttl counts from here.
    refreshed_at       INTEGER NOT NULL,
    body               TEXT NOT NULL,
    UNIQUE (account_id, external_id)
);

CREATE TABLE segment_data (
    segment_id INTEGER NOT NULL REFERENCES segments(id),
    identifier TEXT NOT NULL,
    PRIMARY KEY (segment_id, identifier)
) WITHOUT ROWID;
